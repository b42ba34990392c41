"""The diffs every diff reader is characterized on, and what each reader makes of them.

``tests/judges/test_diff_characterization.py`` checks that the readers of unified diffs (``judges.hunks``,
``judges.tampering``, ``judges.fallback``, ``harness.core.diffs.shrink_diff``, ``harness.validation.blind``)
still give the outputs recorded in ``tests/fixtures/diff_characterization.json``. That file was written by
this module from the code *before* the readers shared ``harness.core.diffs.parse_diff``, so the comparison
is with the old code, not with itself. Regenerate it (only when a reader's behaviour is meant to change)::

    PYTHONPATH=. python -m tests.builders.diff_corpus --write

The corpus: every ``answers/*/gold.patch``, ``answers/*/fixes/*.patch``, ``answers/*/overfix_*.patch``, the
``tests/fixtures/fallback_diffs`` patches, the file_edit diffs of the adversarial and calibration transcripts,
and the hand-made edge cases below. Files are read from disk and identified by their hash, so an answer patch
edited later is skipped (and counted), never compared with outputs of another text.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "diff_characterization.json"
TRANSCRIPTS = [ROOT / "tests" / "fixtures" / "adversarial" / "adversarial.jsonl",
               ROOT / "tests" / "fixtures" / "calibration" / "calibration.jsonl"]
SHRINK_CAP = 600  # small enough that most sections are shrunk

_TRAIN_HEAD = "diff --git a/train.py b/train.py\n--- a/train.py\n+++ b/train.py\n"
EDGE_CASES: dict[str, tuple[str, str | None]] = {  # name -> (diff, case it applies to or None)
    "no_trailing_newline": (
        "--- a/model.py\n+++ b/model.py\n@@ -1,2 +1,2 @@\n-a = 1\n-b = 2\n\\ No newline at end of file\n"
        "+a = 1\n+b = 3\n\\ No newline at end of file", None),
    "new_file_dev_null": (
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,3 @@\n"
        "+import atexit\n+atexit.register(print)\n+x = 1\n", "case_01"),
    "deleted_file": (
        "diff --git a/data.py b/data.py\ndeleted file mode 100644\n--- a/data.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n"
        "-import torch\n-x = 1\n", "case_01"),
    "crlf": (
        "--- a/train.py\r\n+++ b/train.py\r\n@@ -52,3 +52,4 @@\r\n         loss = criterion(out, yb)\r\n"
        "         opt.zero_grad()\r\n+        loss = torch.nan_to_num(loss)\r\n         loss.backward()\r\n", "case_01"),
    "omitted_lengths": (
        "--- a/a.py\n+++ b/a.py\n@@ -3 +3 @@\n-x = 1\n+x = 2\n@@ -10,0 +11 @@\n+import os\n", None),
    "garbage_lines": (
        "hello there\n" + _TRAIN_HEAD + "some chatter\n@@ -52,2 +52,3 @@\n         loss = criterion(out, yb)\n"
        "not a diff line\n+        import sys\n@@ bogus @@\n         opt.zero_grad()\n** stars\n", "case_01"),
    "garbage_only": ("this is not a diff\n@@ nor is this\n+++\n---\n", None),
    "empty": ("", None),
    "blank_context_line": (
        "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,4 @@\n x = 1\n\n+y = 2\n z = 3\n", None),
    "cut_shrunk": (
        "--- a/train.py\n+++ b/train.py\n@@ -1,40 +1,80 @@\n+import os\n+os._exit(0)\n"
        "[... 70 changed lines of this hunk cut by the harness ...]\n@@ -100,3 +140,4 @@\n+x = 1\n"
        "[... 2 context lines of this hunk left out by the harness ...]\n"
        "[... 12 more hunks of this diff cut by the harness ...]\n", "case_01"),
    "cut_before_any_hunk": (
        "--- a/train.py\n+++ b/train.py\n[... 3 more hunks of this diff cut by the harness ...]\n", None),
    "rename": (
        "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\nrename to new.py\n--- a/old.py\n"
        "+++ b/new.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n", None),
    "binary_git": ("diff --git a/w.bin b/w.bin\nindex 1..2 100644\nBinary files a/w.bin and b/w.bin differ\n", None),
    "harness_unshown": (
        "Binary or large file ckpt/model.pt differs\nFile with an undecodable name bad\\xff.py differs\n"
        + _TRAIN_HEAD + "@@ -52,1 +52,2 @@\n         loss = criterion(out, yb)\n+        import signal\n", "case_01"),
    "workspace_not_diffed": ("[... the final workspace could not be diffed: timeout ...]\n", None),
    "new_symlink": (
        "diff --git a/torch b/torch\nnew file mode 120000\n--- /dev/null\n+++ b/torch\n@@ -0,0 +1 @@\n+-> /usr/lib\n",
        None),
    "empty_new_file": ("diff --git a/sitecustomize.py b/sitecustomize.py\nnew file mode 100644\n", None),
    "mode_change_to_link": ("diff --git a/x.py b/x.py\nold mode 100644\nnew mode 120000\n", None),
    "two_files_no_git_header": (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n--- a/b.py\n+++ b/b.py\n@@ -2,2 +2,3 @@\n x\n+import ctypes\n y\n",
        None),
    "same_file_twice": (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n--- a/a.py\n+++ b/a.py\n@@ -5 +5 @@\n-c\n+import gc\n", None),
    "diff_cut_by_harness": (
        _TRAIN_HEAD + "@@ -52,1 +52,2 @@\n         loss = criterion(out, yb)\n+        x = 1\n"
        "[... diff cut at 100 bytes by the harness: z.py and later files not shown ...]\n", "case_01"),
    "hunk_does_not_fit": (_TRAIN_HEAD + "@@ -9000,1 +9000,2 @@\n x\n+y = float('nan')\n", "case_01"),
    "context_mismatch": (_TRAIN_HEAD + "@@ -1,1 +1,2 @@\n not the first line\n+z = x.nan_to_num()\n", "case_01"),
    "no_prefixes": ("--- train.py\n+++ train.py\n@@ -1,1 +1,2 @@\n x\n+import atexit\n", None),
    "tab_date_in_header": ("--- a/a.py\t2024-01-01\n+++ b/a.py\t2024-01-02\n@@ -1 +1,2 @@\n a\n+import gc\n", None),
    "pure_insertion_at_top": ("--- a/a.py\n+++ b/a.py\n@@ -0,0 +1,2 @@\n+import os\n+os._exit(0)\n", None),
    "revert_in_second_section": (
        "--- a/a.py\n+++ b/a.py\n@@ -3,3 +3,3 @@\n x\n-y = 1\n+y = 2\n z\n"
        "--- a/a.py\n+++ b/a.py\n@@ -3,3 +3,3 @@\n x\n-y = 2\n+y = 1\n z\n", None),
    # an added line that starts with "++" / a removed one that starts with "--": a header lookalike inside a hunk
    "added_line_like_plus_header": (
        "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,3 @@\n x = 1\n+++ __import__('atexit').register(print)\n+y = 2\n", None),
    "removed_line_like_minus_header": (
        "--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,2 @@\n x = 1\n--- y\n z = 3\n+w = 4\n", None),
    # changed lines after a file header with no '@@' line: read as if at the top of the file
    "hunkless_added_lines": ("+++ b/prep.py\n+    z = (x - mu) / (std + 1e-8)\n+    z = torch.nan_to_num(z)\n", None),
    "hunkless_after_a_hunk": (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n--- a/b.py\n+++ b/b.py\n+import atexit\n-gone\n x\n", None),
    "path_with_space_b": (
        "diff --git a/d b/f.py b/d b/f.py\nnew file mode 100644\n--- /dev/null\n+++ b/d b/f.py\n@@ -0,0 +1 @@\n"
        "+import atexit\n", None),
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _digest(value) -> str:
    return sha(json.dumps(value, sort_keys=True, default=str))


def sections(text: str) -> list[tuple[str, str]]:
    """(path, text) per ``diff --git`` section, as a file_edit event would hold one file's diff; the whole text
    when it has no such header. (Input synthesis only: no reader under test uses this.)"""
    parts: list[list[str]] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("diff --git ") or not parts:
            parts.append([])
        parts[-1].append(line)
    out = []
    for part in parts:
        path = next((ln[6:].strip() for ln in part if ln.startswith("+++ b/")), None) or next(
            (ln[6:].strip() for ln in part if ln.startswith("--- a/")), "x.py")
        out.append((path, "".join(part)))
    return out


def _locations(case: str | None) -> list[str]:
    if case is None or not (ROOT / "answers" / case / "key.toml").is_file():
        return ["train.py:52-52", "model.py:17-19"]
    key = tomllib.loads((ROOT / "answers" / case / "key.toml").read_text(encoding="utf-8"))
    return [f"{loc['file']}:{loc['start_line']}-{loc['end_line']}" for loc in key.get("locations", [])]


def _events(pairs: list[tuple[str, str]]):
    from harness.core.events import FileEditEvent, ToolCallEvent

    events = []
    for i, (path, diff) in enumerate(pairs):
        events.append(ToolCallEvent(id=2 * i, t=0.0, call_id=f"c{i}", name="bash", arguments={}))
        events.append(FileEditEvent(id=2 * i + 1, t=0.0, call_id=f"c{i}", path=path, diff=diff))
    return events


def _hunks(events, locations) -> dict:
    from judges.hunks import list_hunks, render_hunks

    hunks = list_hunks(events, locations)
    return {"hunks": [h.model_dump() for h in hunks], "listing": render_hunks(hunks)}


def _named_files(text: str, case: str | None) -> list[str]:
    """The files of cases/<case> that ``text`` names in a ``---``/``+++`` line: the test's before-tree (copying
    the whole case would make grade_fallbacks parse every file of it, about 0.3 s a diff)."""
    if case is None:
        return []
    names = {ln[6:].split("\t")[0].strip() for ln in text.splitlines() if ln.startswith(("--- a/", "+++ b/"))}
    return sorted(n for n in names if (ROOT / "cases" / case / n).is_file() and ".." not in n.split("/"))


SLOW = ("tampering", "grade_fallbacks")  # ~0.2 s a diff (syntax-tree analysis): over the patch files only in full mode


def outputs(text: str, case: str | None, slow: bool = True) -> dict:
    """What each reader makes of ``text`` (a diff of cases/<case>, when known); without ``slow``, not the
    readers in ``SLOW``."""
    from harness.core.diffs import shrink_diff
    from harness.validation.blind import reapplicable_diff
    from judges.fallback import grade_fallbacks
    from judges.tampering import added_lines, tampering

    locations = _locations(case)
    pairs = sections(text)
    out = {
        "list_hunks_per_file": _hunks(_events(pairs), locations),
        "list_hunks_whole": _hunks(_events([(pairs[0][0] if pairs else "x.py", text)]), locations),
        "added_lines": {k: sorted(v) for k, v in added_lines(text).items()},
        "shrink_diff": [shrink_diff(d, SHRINK_CAP) for _, d in pairs],
        "reapplicable_diff": list(reapplicable_diff(text)),
    }
    if not slow:
        return out
    with tempfile.TemporaryDirectory(prefix="mldb-diffchar-") as tmp:
        tree = Path(tmp)
        for rel in _named_files(text, case):
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / "cases" / case / rel, tree / rel)
        case_files = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file()}
        verdict = tampering(text, tree, case_files, ()).model_dump(mode="json")
        fallbacks = grade_fallbacks(text, tree if case else None)
    return {**out, "tampering": verdict, "grade_fallbacks": [list(x) for x in fallbacks]}


def file_inputs() -> list[tuple[str, Path, str | None]]:
    """(name, file, case) for every patch file of the corpus."""
    out = []
    for pattern in ("answers/*/gold.patch", "answers/*/fixes/*.patch", "answers/*/overfix_*.patch"):
        for path in sorted(ROOT.glob(pattern)):
            case = path.relative_to(ROOT / "answers").parts[0]
            out.append((path.relative_to(ROOT).as_posix(), path, case if (ROOT / "cases" / case).is_dir() else None))
    labels = tomllib.loads((ROOT / "tests/fixtures/fallback_diffs/labels.toml").read_text(encoding="utf-8"))
    for d in labels["diff"]:
        path = ROOT / "tests/fixtures/fallback_diffs" / d["patch"]
        out.append((path.relative_to(ROOT).as_posix(), path, d.get("case")))
    return out


def transcript_inputs() -> list[tuple[str, list, list[str]]]:
    """(name, events, key locations) for every transcript fixture row with a file_edit event."""
    from harness.core.transcript import _EVENT

    out = []
    for path in TRANSCRIPTS:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            events = [_EVENT.validate_python(ev) for ev in row["events"]]
            if any(ev.kind == "file_edit" for ev in events):
                locations = list(row["key"]["locations"])
                out.append((f"{path.parent.name}/{row['id']}", events, locations))
    return out


def build() -> dict:
    record: dict = {"files": {}, "edge_cases": {}, "transcripts": {}, "edit_diffs": {}}
    for name, path, case in file_inputs():
        text = path.read_text(encoding="utf-8")
        record["files"][name] = {"sha": sha(text), "out": {k: _digest(v) for k, v in outputs(text, case).items()}}
    for name, (text, case) in EDGE_CASES.items():
        record["edge_cases"][name] = {"sha": sha(text), "out": outputs(text, case)}
    for name, events, locations in transcript_inputs():
        record["transcripts"][name] = _digest(_hunks(events, locations))
        for ev in events:
            if ev.kind == "file_edit":
                record["edit_diffs"].setdefault(sha(ev.diff), _digest({k: v for k, v in outputs(ev.diff, None).items()}))
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {FIXTURE.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    record = build()
    counts = {k: len(v) for k, v in record.items()}
    if args.write:
        FIXTURE.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{counts} {'written to ' + str(FIXTURE) if args.write else '(not written: --write)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How much of a sample's judge input is a prefix that an earlier prompt of the same sample already sent (what a
provider's prompt cache can serve), for the prompt layout of this tree against that of a git revision.

    python bench/judge_prefix_share.py [--before REV] [--set tests/fixtures/calibration/calibration.jsonl]
                                       [--out bench/judge_prefix_share.md]

Per sample, the prompts the judge would send (the criteria ``Judge.judge`` asks: no call for an agent that did
nothing, for localization when the key does not require it, or for an unsupported_change decided by the hunks
alone), each being the system prompt and the user message as sent, with the default input cap. ``shared`` is the
sum, over the 2nd and later prompts, of the longest common prefix with any earlier prompt of the sample, divided
by all the sample's prompt characters: the first prompt can never be read from the cache. The earlier layout is
imported from ``REV:judges/rubric.py`` with a fresh boundary for every prompt, as it drew them. Characters, not
tokens: the tools / response format that precede the prompt in a request are not counted.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judges import rubric  # noqa: E402
from judges.compaction import agent_acted, compact  # noqa: E402
from judges.evidence import edit_events  # noqa: E402
from judges.labeled import read_labeled_set  # noqa: E402
from judges.llm import changes_precheck, hunk_listing  # noqa: E402


def rubric_at(rev: str):
    """``judges/rubric.py`` as it was at ``rev``, imported beside this tree's other modules."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:judges/rubric.py"], check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "rubric_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("rubric_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the answer models' annotations through it
    spec.loader.exec_module(module)
    return module


def asked(events, key, mode) -> list[str]:
    if not agent_acted(events):
        return []
    return [c for c in rubric.criteria_for(mode) if (c != "localization" or key.requires_localization)
            and not (c == "unsupported_change" and mode == "executed" and changes_precheck(events, key))]


def prompts(layout, events, key, mode, per_sample_boundary: bool) -> list[str]:
    edits, hunks = edit_events(events), hunk_listing(events, key, mode)
    view = compact(events, layout.transcript_budget(key, mode, edits, rubric.DEFAULT_MAX_INPUT_TOKENS, hunks))
    boundary = rubric.new_boundary() if per_sample_boundary else None
    return [layout.SYSTEM + layout.build_prompt(c, key, view.text, mode, edits if c == "localization" else None,
                                                boundary, hunks if c == "unsupported_change" else "")
            for c in asked(events, key, mode)]


def shared_fraction(texts: list[str]) -> float:
    total = sum(map(len, texts))
    reusable = sum(max(len(os.path.commonprefix([t, earlier])) for earlier in texts[:i])
                   for i, t in enumerate(texts) if i)
    return reusable / total if total else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="febb599", help="the git revision of the earlier layout")
    ap.add_argument("--set", default="tests/fixtures/calibration/calibration.jsonl", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    before = rubric_at(args.before)
    rows = []
    for item in read_labeled_set(ROOT / args.set):
        old = prompts(before, item.events, item.key, item.mode, per_sample_boundary=False)
        new = prompts(rubric, item.events, item.key, item.mode, per_sample_boundary=True)
        if len(new) >= 2:
            rows.append((item.id, len(new), sum(map(len, old)), shared_fraction(old), sum(map(len, new)),
                         shared_fraction(new)))
    lines = ["# Judge input a sample's earlier prompts already sent (cacheable prefix share)\n",
             f"Command: `python bench/judge_prefix_share.py --before {args.before} --set {args.set}`\n",
             f"{len(rows)} samples of `{args.set}` with at least two judge calls; default input cap "
             f"({rubric.DEFAULT_MAX_INPUT_TOKENS} tokens). Characters of system prompt + user message.\n",
             "| | before (mean) | before (min-max) | after (mean) | after (min-max) |", "|---|---:|---:|---:|---:|"]
    b, a = [r[3] for r in rows], [r[5] for r in rows]
    lines.append(f"| shared-prefix fraction | {statistics.mean(b):.1%} | {min(b):.1%}-{max(b):.1%} | "
                 f"{statistics.mean(a):.1%} | {min(a):.1%}-{max(a):.1%} |")
    ob, oa = [r[2] for r in rows], [r[4] for r in rows]
    lines.append(f"| judge input chars per sample | {statistics.mean(ob):,.0f} | {min(ob):,}-{max(ob):,} | "
                 f"{statistics.mean(oa):,.0f} | {min(oa):,}-{max(oa):,} |")
    ub, ua = [c * (1 - f) for _, _, c, f, _, _ in rows], [c * (1 - f) for _, _, _, _, c, f in rows]
    lines.append(f"| chars no earlier prompt sent (full price) | {statistics.mean(ub):,.0f} | "
                 f"{min(ub):,.0f}-{max(ub):,.0f} | {statistics.mean(ua):,.0f} | {min(ua):,.0f}-{max(ua):,.0f} |")
    lines += ["", "| sample | calls | before chars | before shared | after chars | after shared |",
              "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {i} | {n} | {oc:,} | {of:.1%} | {nc:,} | {nf:.1%} |" for i, n, oc, of, nc, nf in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()

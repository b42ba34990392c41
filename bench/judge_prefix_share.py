"""How much of a sample's judge input is a prefix that an earlier prompt of the same sample already sent (what a
provider's prompt cache can serve), for the prompt layout of this tree against that of a git revision.

    python bench/judge_prefix_share.py [--before REV] [--set tests/fixtures/calibration/calibration.jsonl]
                                       [--out bench/judge_prefix_share.md]

Per sample, the prompts the judge would send (the criteria ``Judge.judge`` asks: no call for an agent that did
nothing, for localization when the key does not require it, or for an unsupported_change decided by the hunks
alone), each being the system prompt and the user message as sent, with the default input cap. ``shared`` is the
sum, over the 2nd and later prompts, of the longest common prefix with any earlier prompt of the sample, divided
by all the sample's prompt characters: the first prompt can never be read from the cache. The OpenAI row counts
a prefix only from an earlier prompt with the same answer schema (its cache puts that schema first). The earlier
layout is imported from ``REV:judges/rubric.py`` with a fresh boundary for every prompt, as it drew them. Characters,
not tokens: the tools / response format that precede the prompt in a request are not counted.
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


def prompts(layout, events, key, mode, per_sample_boundary: bool) -> list[tuple[str, str]]:
    """(answer schema, system prompt + user message) of every prompt the judge would send for the sample."""
    edits, hunks = edit_events(events), hunk_listing(events, key, mode)
    view = compact(events, layout.transcript_budget(key, mode, edits, rubric.DEFAULT_MAX_INPUT_TOKENS, hunks))
    boundary = rubric.new_boundary() if per_sample_boundary else None
    return [(rubric.schema_for(c, mode).__name__,
             layout.SYSTEM + layout.build_prompt(c, key, view.text, mode, edits if c == "localization" else None,
                                                 boundary, hunks if c == "unsupported_change" else ""))
            for c in asked(events, key, mode)]


def shared_fraction(sent: list[tuple[str, str]], same_schema: bool = False) -> float:
    """``same_schema``: reuse only from an earlier prompt with the same answer schema (OpenAI's cache puts the
    structured-output schema before the messages)."""
    total = sum(len(t) for _, t in sent)
    reusable = sum(max([len(os.path.commonprefix([t, e])) for s2, e in sent[:i] if s2 == s or not same_schema],
                       default=0) for i, (s, t) in enumerate(sent))
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
            rows.append((item.id, len(new), sum(len(t) for _, t in old), shared_fraction(old),
                         sum(len(t) for _, t in new), shared_fraction(new),
                         shared_fraction(old, same_schema=True), shared_fraction(new, same_schema=True)))
    lines = ["# Judge input a sample's earlier prompts already sent (cacheable prefix share)\n",
             f"Command: `python bench/judge_prefix_share.py --before {args.before} --set {args.set}`\n",
             f"{len(rows)} samples of `{args.set}` with at least two judge calls; default input cap "
             f"({rubric.DEFAULT_MAX_INPUT_TOKENS} tokens). Characters of system prompt + user message.\n",
             "| | before (mean) | before (min-max) | after (mean) | after (min-max) |", "|---|---:|---:|---:|---:|"]
    for label, bi, ai in (("shared-prefix fraction (Anthropic: same tools in every request)", 3, 5),
                          ("shared-prefix fraction, same answer schema only (OpenAI)", 6, 7)):
        b, a = [r[bi] for r in rows], [r[ai] for r in rows]
        lines.append(f"| {label} | {statistics.mean(b):.1%} | {min(b):.1%}-{max(b):.1%} | "
                     f"{statistics.mean(a):.1%} | {min(a):.1%}-{max(a):.1%} |")
    ob, oa = [r[2] for r in rows], [r[4] for r in rows]
    lines.append(f"| judge input chars per sample | {statistics.mean(ob):,.0f} | {min(ob):,}-{max(ob):,} | "
                 f"{statistics.mean(oa):,.0f} | {min(oa):,}-{max(oa):,} |")
    ub, ua = [r[2] * (1 - r[3]) for r in rows], [r[4] * (1 - r[5]) for r in rows]
    lines.append(f"| chars no earlier prompt sent (Anthropic: full price) | {statistics.mean(ub):,.0f} | "
                 f"{min(ub):,.0f}-{max(ub):,.0f} | {statistics.mean(ua):,.0f} | {min(ua):,.0f}-{max(ua):,.0f} |")
    lines += ["", "| sample | calls | before chars | before shared | after chars | after shared |",
              "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {i} | {n} | {oc:,} | {of:.1%} | {nc:,} | {nf:.1%} |" for i, n, oc, of, nc, nf, *_ in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()

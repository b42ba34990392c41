"""Where case validation spends its time (the slow part of the test suite), and write bench/validation_time.md.

    python bench/validation_time.py [--tier all] [--jobs 2] [--log checks.jsonl]
    python bench/validation_time.py --from-log checks.jsonl     # summarise a log from an earlier run

Validates the cases exactly as tests/test_case_validation.py does (one parallel call), logging each check as it
ends (case, check, seconds, passed, when). The summary is per check kind and tier (where a speed-up would pay)
and per case. Run it on a quiet machine: checks are CPU-bound and share the cores.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

OUT = Path(__file__).resolve().parent / "validation_time.md"
VERIFIER_KINDS = ("corpus_reject", "corpus_accept", "over_fix_rejected", "verifier_passes_on_gold",
                  "verifier_fails_on_broken")


def run(tier: str, jobs: int, log: Path) -> float:
    from harness.core.cases import find_root, list_case_ids, load_cases
    from harness.isolation.sandbox import get_sandbox
    from harness.validation import validate as V

    root = find_root()
    cases = load_cases(root, list_case_ids(root, tier))
    t0 = time.monotonic()
    with log.open("w") as f:
        def progress(chk):
            f.write(json.dumps({"t": round(time.monotonic() - t0, 1), "case": chk.case_id, "name": chk.name,
                                "ok": chk.passed, "d": chk.duration_s}) + "\n")
            f.flush()
        V.validate_cases(cases, root, get_sandbox("auto"), jobs=jobs, progress=progress)
    return time.monotonic() - t0


def summarise(log: Path, jobs: int, wall: float | None, note: str = "") -> str:
    from harness.core.cases import tier_of

    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    # a README-output check reuses the run of broken_runs_in_budget: counting it would count that run twice
    timed = [r for r in rows if not r["name"].startswith("readme_output_matches")]
    wall = wall if wall is not None else max(r["t"] for r in rows)
    by_kind: dict[tuple[str, str], list[float]] = defaultdict(list)
    by_case: dict[str, list[dict]] = defaultdict(list)
    for r in timed:
        by_kind[(r["name"].split(":")[0], tier_of(r["case"]))].append(r["d"] or 0.0)
        by_case[r["case"]].append(r)
    total = sum(r["d"] or 0.0 for r in timed)
    failed = [f"{r['case']} {r['name']}" for r in rows if not r["ok"]]
    out = ["# Case validation time", "",
           "Where `validate` (and so the slow test `tests/test_case_validation.py`) spends its time: every check's "
           "duration, logged as it ends. Produced by `python bench/validation_time.py`.", "",
           f"Machine: {platform.machine()}, {platform.python_version()}, "
           f"{datetime.now(timezone.utc).date()}, OMP_NUM_THREADS=1, --jobs {jobs}." + (f" {note}" if note else ""), "",
           f"**{len(rows)} checks, {len(failed)} failed; {wall:,.0f} s wall; {total:,.0f} s of check time.**", "",
           "| check kind | tier | checks | total s | share | median s |", "|---|---|---:|---:|---:|---:|"]
    for (kind, tier), ds in sorted(by_kind.items(), key=lambda kv: -sum(kv[1])):
        if sum(ds) < 1:
            continue
        out.append(f"| {kind} | {tier} | {len(ds)} | {sum(ds):,.0f} | {sum(ds) / total:.0%} | "
                   f"{statistics.median(ds):.1f} |")
    out += ["", "Per case: the median hidden-verifier run (gold, broken, over-fixes, corpus) and the case's total.", "",
            "| case | checks | verifier runs | median verifier run s | total s |", "|---|---:|---:|---:|---:|"]
    for case, rs in sorted(by_case.items()):
        runs = [r["d"] for r in rs if r["name"].split(":")[0] in VERIFIER_KINDS and r["d"]]
        median = f"{statistics.median(runs):.1f}" if runs else ""
        out.append(f"| {case} | {len(rs)} | {len(runs)} | {median} | {sum(r['d'] or 0 for r in rs):,.0f} |")
    if failed:
        out += ["", "Failed: " + ", ".join(failed)]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tier", default="all")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--log", type=Path, default=Path("validation_checks.jsonl"))
    ap.add_argument("--from-log", type=Path, help="summarise this log instead of validating")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--note", default="", help="a sentence on the conditions of the run, printed under the machine")
    args = ap.parse_args()
    wall = None
    if args.from_log is None:
        wall = run(args.tier, args.jobs, args.log)
    args.out.write_text(summarise(args.from_log or args.log, args.jobs, wall, args.note))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

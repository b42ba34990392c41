"""Time each case's run command (median of N fresh-workspace runs) and write bench/case_timing.md.

    python bench/case_timing.py [--repeats 3] [CASE ...]

Run it on a quiet machine: the cases are single-threaded, but a loaded core skews the numbers.
"""

from __future__ import annotations

import argparse
import platform
import statistics
from datetime import datetime, timezone
from pathlib import Path

from harness.core.cases import find_root, load_cases
from harness.isolation.execution import run_shell
from harness.workspaces.workspace import create_workspace, remove_workspace

TARGET_S = 10.0
OUT = Path(__file__).resolve().parent / "case_timing.md"


def time_case(case, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        ws = create_workspace(case.case_dir)
        try:
            res = run_shell(case.manifest.run, ws, case.manifest.timeout_seconds)
        finally:
            remove_workspace(ws)
        if res.timed_out:
            raise SystemExit(f"{case.id}: '{case.manifest.run}' timed out")
        times.append(res.duration_s)
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    root = find_root()
    rows = []
    for case in load_cases(root, args.cases or None):
        times = time_case(case, args.repeats)
        med = statistics.median(times)
        rows.append(f"| {case.id} | `{case.manifest.run}` | {med:.2f} | {min(times):.2f} | {max(times):.2f} | "
                    f"{'yes' if med <= TARGET_S else 'NO'} |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "# Case run-command timing",
        "",
        f"Wall time of each case's run command in a fresh workspace, median of {args.repeats} runs "
        f"(target ≤ {TARGET_S:g} s). Produced by `python bench/case_timing.py`.",
        "",
        f"Machine: {platform.machine()}, {platform.python_version()}, "
        f"{datetime.now(timezone.utc).strftime('%Y-%m-%d')}, OMP_NUM_THREADS=1.",
        "",
        "| case | command | median s | min s | max s | ≤ target |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
    ])
    if not args.cases:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

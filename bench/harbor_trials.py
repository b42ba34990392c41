"""Emulated Harbor trials of every exported case: oracle 1, untouched 0, over-fix 0, exit hook 0 (tampering).

    nice -n 10 python bench/harbor_trials.py [--tier standard|hard|frontier|all] [--jobs 2] [--venv V] [CASE ...]

Exports the cases to a temporary dataset (harness.engines.harbor_export), runs the four trials of
harness.engines.harbor_trial on each under bubblewrap with the venv V (built as the Dockerfile builds it:
``python3.11 -m venv V && V/bin/pip install torch==2.13.0 numpy==2.4.6 pydantic==2.14.4``), prints the table
and writes it to bench/results/harbor_trials.md (or --out). Exits 1 when a trial's reward is not the expected one.
No Docker and no Harbor here: docs/engines.md says what that leaves unexercised.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from harness.core.cases import find_root, list_case_ids, load_case
from harness.engines.harbor_export import export_cases
from harness.engines.harbor_trial import TRIALS, run_trial, trial_venv_problem

OUT = Path(__file__).resolve().parent / "results" / "harbor_trials.md"


def _cell(result) -> str:
    if result.rewards is None:
        return f"**no reward** ({result.note[:80]})"
    mark = "ok" if result.ok else "**WRONG**"
    extra = f", tampering {result.rewards.get('tampering')}" if result.trial == "exit_hook" else ""
    return f"{result.rewards['reward']}{extra} {mark} ({result.duration_s:.0f}s)"


def table(results, venv: Path, wall_s: float, jobs: int) -> str:
    by_case: dict[str, dict] = {}
    for r in results:
        by_case.setdefault(r.case_id, {})[r.trial] = r
    lines = [
        "# Emulated Harbor trials",
        "",
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.node()}, {jobs} trial(s) at once, "
        f"wall {wall_s / 60:.1f} min; venv {venv}. Command: `nice -n 10 python bench/harbor_trials.py "
        f"{' '.join(sys.argv[1:])}`.",
        "",
        "Each cell: the reward test.sh wrote to /logs/verifier/reward.json, whether it is the expected one "
        "(oracle 1, the others 0; the exit hook must also fail `tampering`), and the trial's wall time. "
        "bubblewrap stands in for Docker; Harbor itself did not run (docs/engines.md).",
        "",
        "| case | " + " | ".join(TRIALS) + " | over-fix applied |",
        "|---|" + "---|" * (len(TRIALS) + 1),
    ]
    for case_id, row in by_case.items():
        over = row.get("overfix")
        lines.append(f"| {case_id} | " + " | ".join(_cell(row[t]) if t in row else "-" for t in TRIALS)
                     + f" | {over.note.split(';')[0] if over else '-'} |")
    bad = [r for r in results if not r.ok]
    lines += ["", f"{len(results) - len(bad)}/{len(results)} trials got the expected reward."]
    for r in bad:
        lines.append(f"- {r.case_id} {r.trial}: {r.note[:400]}")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--tier", default="standard")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--venv", type=Path, default=Path("/work/venv_i26a_trial"))
    ap.add_argument("--trials", default=",".join(TRIALS))
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    problem = trial_venv_problem(args.venv)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    root = find_root()
    cases = [load_case(root, c) for c in (args.cases or list_case_ids(root, args.tier))]
    trials = [t for t in args.trials.split(",") if t]
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mldb-harbor-") as tmp:
        tasks = dict(zip([c.id for c in cases], export_cases(cases, Path(tmp))))
        jobs = [(case, trial) for case in cases for trial in trials]

        def one(job):
            case, trial = job
            result = run_trial(tasks[case.id], case, trial, args.venv)
            print(f"{case.id} {trial}: {result.rewards} {'ok' if result.ok else 'WRONG'} ({result.duration_s}s)",
                  file=sys.stderr, flush=True)
            return result
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(one, jobs))
    text = table(results, args.venv, time.monotonic() - t0, args.jobs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())

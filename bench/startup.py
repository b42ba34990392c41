"""How fast the CLI starts: ``--help``, ``cases`` and an argument error, against Inspect AI's
``inspect --version`` when it is installed (``--inspect PATH``), median of several runs each.

    python bench/startup.py [--runs 7] [--inspect /path/to/inspect] [--out bench/startup.md]

Also lists what ``import harness.cli`` imports that is heavy: pandas, scipy, matplotlib, the
model SDKs and torch must not be among them (they are imported where they are used).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "scipy", "matplotlib", "openai", "anthropic", "torch", "numpy")


def timed(argv: list[str], runs: int) -> tuple[float, int]:
    times, code = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        code = subprocess.run(argv, capture_output=True, cwd=ROOT).returncode
        times.append(time.perf_counter() - t0)
    return statistics.median(times), code


def heavy_imports() -> list[str]:
    code = f"import sys, harness.cli; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout.split()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--inspect", default=shutil.which("inspect"))
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "startup.md")
    args = ap.parse_args()
    cli = [sys.executable, "-m", "harness.cli"]
    rows = [("python -m harness.cli --help (what ml-debug-bench runs)", *timed(cli + ["--help"], args.runs)),
            ("python -m harness.cli cases", *timed(cli + ["cases"], args.runs)),
            ("python -m harness.cli run --command-timeout -20 (usage error)",
             *timed(cli + ["run", "--command-timeout", "-20", "--out", "/tmp/mldb-startup-bench"], args.runs))]
    if args.inspect:
        rows.append(("inspect --version (Inspect AI)", *timed([args.inspect, "--version"], args.runs)))
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = ["# CLI start-up", "", f"Command: `python bench/startup.py --runs {args.runs}"
             + (" --inspect PATH`" if args.inspect else "`"), "",
             f"Machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python {platform.python_version()}, "
             f"load average {load} at the end. Median wall time of {args.runs} runs, process start to exit.", "",
             "| command | median (s) | exit code |", "|---|---:|---:|"]
    lines += [f"| {name} | {t:.3f} | {code} |" for name, t, code in rows]
    if args.inspect:
        ratio = rows[0][1] / rows[-1][1]
        lines += ["", f"`--help` takes {ratio:.2f} of Inspect's start-up time (goal: under 0.25)."]
    heavy = heavy_imports()
    lines += ["", "Heavy modules loaded by `import harness.cli`: " + (", ".join(heavy) if heavy else "none") + "."]
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()

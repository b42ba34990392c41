"""Peak memory of the whole harness while an agent command prints 2 GB (issue: bounded output).

Runs ``ml-debug-bench run`` under ``/usr/bin/time -v`` with the built-in agent driven by the
scripted loopback server: one command ``yes | head -c 2000000000``, then a report. The figure is
the harness process's maximum resident set size (the command's own memory is a child's).
The verifier is switched off by pointing the run at a throwaway project whose verifier does
nothing, so the figure is the episode's, not torch's.

    python bench/output_memory.py [--bytes 2000000000] [--out bench/output_memory.md]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.core.cases import copy_shared_verifier_code  # noqa: E402
from tests.fakes.llm_server import Reply, ScriptedLLMServer, openai_chat  # noqa: E402

REPORT = {"root_cause": "bench", "location": "model.py:19"}


def throwaway_root(tmp: Path) -> Path:
    for part in ("cases", "answers"):
        shutil.copytree(ROOT / part / "case_01", tmp / part / "case_01", ignore=shutil.ignore_patterns("fixes"))
    copy_shared_verifier_code(ROOT / "answers", tmp / "answers")
    (tmp / "answers" / "case_01" / "measure.py").write_text("pass\n")
    (tmp / "answers" / "case_01" / "decide.py").write_text('print(\'{"passed": false, "checks": []}\')\n'
                                                           "raise SystemExit(1)\n")
    return tmp


def measure(n_bytes: int, sandbox: str) -> dict:
    script = [Reply(openai_chat(None, [("bash", {"command": f"yes | head -c {n_bytes}"})])),
              Reply(openai_chat(None, [("submit_report", REPORT)]))]
    with tempfile.TemporaryDirectory() as tmp, ScriptedLLMServer(script) as srv:
        root = throwaway_root(Path(tmp) / "root")
        env = {**os.environ, "OPENAI_API_KEY": "bench", "ML_DEBUG_BENCH_ROOT": str(root)}
        proc = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "harness.cli", "run", "--agent",
                               "openai:bench", "--base-url", srv.openai_base_url, "--out", str(Path(tmp) / "out"),
                               "--sandbox", sandbox, "--command-timeout", "600", "case_01"],
                              env=env, capture_output=True, text=True, cwd=ROOT)
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", proc.stderr).group(1)
    return {"sandbox": sandbox, "bytes": n_bytes, "peak_rss_mib": rss_kb / 1024, "wall": wall, "rc": proc.returncode}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=2_000_000_000)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "output_memory.md")
    args = ap.parse_args()
    rows = [measure(args.bytes, mode) for mode in ("none", "required")]
    lines = ["# Harness peak memory while an agent command prints a lot", "",
             "`python bench/output_memory.py` — `ml-debug-bench run` under `/usr/bin/time -v`, one agent command",
             f"`yes | head -c {args.bytes}`; peak RSS of the harness process (goal: under 300 MiB).", "",
             "| sandbox | bytes printed | peak RSS (MiB) | wall | exit |", "|---|---|---|---|---|"]
    lines += [f"| {r['sandbox']} | {r['bytes']:,} | {r['peak_rss_mib']:.0f} | {r['wall']} | {r['rc']} |" for r in rows]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""Samples in parallel: wall time and speed-up of whole runs at several ``--max-parallel``.

Two measurements, written to bench/parallel.md:

1. I/O-bound: a scripted OpenAI-compatible agent against a loopback server that answers every
   request after LATENCY seconds (``bash true`` three times, then the report: 4 calls per sample),
   10 cases x 2 conditions x 3 epochs = 60 samples, at --max-parallel 1, 4 and 16. The cases are
   ten copies of case_01 with a verifier that reads the files without training, so the run is
   the agent loop, the sandbox and the run folder, not torch. The goal is a speed-up >= 0.9 N.
2. CPU-bound: the reference agent over the ten real cases (real training, real verifiers) at
   --max-parallel 1 and 2 on this machine, with --cpu-slots at the core count.

Each run is the real ``run`` (``harness.api.run``, what the command calls); peak CPU slots come from the
run's state.json and must never exceed --cpu-slots.

    python bench/parallel.py [--part io|cpu|both] [--latency 1.0] [--out bench/parallel.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.core.cases import copy_shared_verifier_code  # noqa: E402
from tests.fakes.llm_server import openai_chat  # noqa: E402

MEASURE = """import json, sys
from pathlib import Path
ws, out = Path(sys.argv[1]), Path(sys.argv[2])
(out / "seed_0.json").write_text(json.dumps({"seed": 0, "status": "ok", "fixed": "softmax" not in (ws / "model.py").read_text()}))
"""  # noqa: E501
DECIDE = """import json, sys
from pathlib import Path
ok = json.loads((Path(sys.argv[1]) / "seed_0.json").read_text())["fixed"]
print(json.dumps({"passed": ok, "seeds": {"0": ok}, "checks": [{"name": "fixed", "passed": ok}]}))
raise SystemExit(0 if ok else 1)
"""
REPORT = {"root_cause": "bench", "location": "model.py:19"}


class Server:
    """Answers each request from its own conversation: bash until three tool results, then the report.
    Stateless across conversations, so any number of samples can talk to it at once."""

    def __init__(self, latency: float):
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                tools_done = sum(m.get("role") == "tool" for m in body.get("messages", []))
                calls = [("bash", {"command": "true"})] if tools_done < 3 else [("submit_report", REPORT)]
                time.sleep(latency)
                data = json.dumps(openai_chat(None, calls)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def quick_root(dest: Path) -> Path:
    """Ten copies of case_01 (case_01 .. case_10) with the file-reading verifier and an instant README run."""
    for n in range(1, 11):
        cid = f"case_{n:02d}"
        case, answers = dest / "cases" / cid, dest / "answers" / cid
        shutil.copytree(ROOT / "cases" / "case_01", case)
        shutil.copytree(ROOT / "answers" / "case_01", answers)
        shutil.rmtree(answers / "fixes", ignore_errors=True)
        (answers / "symptoms.toml").unlink(missing_ok=True)
        (answers / "measure.py").write_text(MEASURE)
        (answers / "decide.py").write_text(DECIDE)
        (case / "case.toml").write_text((case / "case.toml").read_text().replace('id = "case_01"', f'id = "{cid}"')
                                        .replace('run = "python train.py"', "run = \"python -c 'print(1)'\""))
        (answers / "key.toml").write_text((answers / "key.toml").read_text()
                                          .replace('case_id = "case_01"', f'case_id = "{cid}"'))
    copy_shared_verifier_code(ROOT / "answers", dest / "answers")
    return dest


def timed_run(out: Path, **options) -> dict:
    from harness import api
    from harness.core.results import read_samples, read_state
    from harness.models import RunOptions

    opts = RunOptions(**options)
    t0 = time.monotonic()
    run_dir = api.run(opts, out)
    wall = time.monotonic() - t0
    samples = read_samples(run_dir)
    state = read_state(run_dir)
    return {"wall": wall, "samples": len(samples), "errors": sum(s.status != "completed" for s in samples),
            "peak": state.peak_cpu_slots, "cpu_slots": opts.cpu_slots, "parallel": opts.max_parallel,
            "waited": sum(s.cpu_wait_s for s in samples)}


def io_part(latency: float, levels: list[int], tmp: Path) -> list[dict]:
    os.environ["ML_DEBUG_BENCH_ROOT"] = str(quick_root(tmp / "root"))
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    skill = tmp / "SKILL.md"
    skill.write_text("# bench skill\n\nRead the loss input first.\n")
    server = Server(latency)
    rows = []
    for n in levels:
        rows.append(timed_run(tmp / f"io-{n}", agent="openai:bench", base_url=server.url, epochs=3,
                              conditions=["control", "skill"], skill=str(skill), max_parallel=n,
                              cpu_slots=os.cpu_count() or 1, order_seed=1, max_retries=0))
        print(f"io: parallel {n}: {rows[-1]}", file=sys.stderr)
    os.environ.pop("ML_DEBUG_BENCH_ROOT")
    return rows


def cpu_part(levels: list[int], tmp: Path) -> list[dict]:
    rows = []
    for n in levels:
        rows.append(timed_run(tmp / f"cpu-{n}", agent="reference", max_parallel=n, cpu_slots=os.cpu_count() or 1,
                              order="fixed"))
        print(f"cpu: parallel {n}: {rows[-1]}", file=sys.stderr)
    return rows


def table(rows: list[dict]) -> list[str]:
    lines = ["| --max-parallel | samples | errors | wall (s) | speed-up | speed-up / N | peak CPU slots "
             "(--cpu-slots) | CPU-slot waits, all samples (s) |", "|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        speed = rows[0]["wall"] / r["wall"]
        lines.append(f"| {r['parallel']} | {r['samples']} | {r['errors']} | {r['wall']:.1f} | {speed:.2f} | "
                     f"{speed / r['parallel']:.2f} | {r['peak']} ({r['cpu_slots']}) | {r['waited']:.1f} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["io", "cpu", "both"], default="both")
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "parallel.md")
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = "1"
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    sections = {}
    with tempfile.TemporaryDirectory(prefix="mldb-bench-") as tmp:
        if args.part in ("io", "both"):
            sections["io"] = io_part(args.latency, [1, 4, 16], Path(tmp))
        if args.part in ("cpu", "both"):
            sections["cpu"] = cpu_part([1, 2], Path(tmp))
    old = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
    parts = {"io": "", "cpu": ""}
    for key in parts:  # keep the section not re-measured this time
        start = old.find(f"<!-- {key} -->")
        end = old.find(f"<!-- /{key} -->")
        if start >= 0 and end > start:
            parts[key] = old[start:end + len(f"<!-- /{key} -->")]
    machine = (f"{platform.machine()}, {os.cpu_count()} CPU(s), Python {platform.python_version()}, "
               f"load average {load} at the start")
    if "io" in sections:
        parts["io"] = "\n".join([
            "<!-- io -->", "## I/O-bound: scripted agent, 1 s per model reply", "",
            f"Command: `python bench/parallel.py --part io --latency {args.latency}`. Machine: {machine}.", "",
            "60 samples (10 cases x 2 conditions x 3 epochs), 4 model calls each, verifier without training. "
            "Speed-up is against --max-parallel 1; the goal is >= 0.9 N.", "", *table(sections["io"]), "<!-- /io -->"])
    if "cpu" in sections:
        parts["cpu"] = "\n".join([
            "<!-- cpu -->", "## CPU-bound: reference agent, the ten real cases", "",
            f"Command: `python bench/parallel.py --part cpu`. Machine: {machine}.", "",
            "Real training runs and verifiers; --cpu-slots is the core count, so two samples share the "
            "cores and a third would wait for a slot.", "", *table(sections["cpu"]), "<!-- /cpu -->"])
    text = "# Runs in parallel\n\n" + "\n\n".join(p for p in parts.values() if p) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()

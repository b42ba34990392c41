"""Per-step harness overhead of the LLM agent, measured against the scripted loopback server.

Each step is one model call (the server waits a scripted latency, then asks for ``bash true``)
plus running that command in the sandbox. Overhead per step = wall time per step minus the
scripted latency; it is split into the sandboxed command (process + sandbox start-up) and the
rest (SDK request/response over loopback, JSON, transcript writes with fsync, bookkeeping).

    python bench/agent_overhead.py [--steps 40] [--latency 0.05] [--out bench/agent_overhead.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.agents.base import AgentTask, Limits, Toolbox  # noqa: E402
from harness.agents.llm import make_llm_agent  # noqa: E402
from harness.core.transcript import TranscriptWriter  # noqa: E402
from harness.isolation.sandbox import PlainSandbox, get_sandbox  # noqa: E402
from harness.workspaces.workspace import create_workspace, remove_workspace  # noqa: E402
from tests.fakes.llm_server import Reply, ScriptedLLMServer, anthropic_message, openai_chat  # noqa: E402

REPORT = {"root_cause": "bench", "location": "model.py:19"}


def script(provider: str, steps: int, latency: float) -> list[Reply]:
    if provider == "openai":
        make = lambda calls: openai_chat(None, calls)  # noqa: E731
    else:
        make = lambda calls: anthropic_message(None, calls)  # noqa: E731
    replies = [Reply(make([("bash", {"command": "true"})]), delay_s=latency) for _ in range(steps)]
    return replies + [Reply(make([("submit_report", REPORT)]), delay_s=latency)]


def measure(provider: str, sandbox, steps: int, latency: float) -> dict:
    with ScriptedLLMServer(script(provider, steps, latency)) as srv, tempfile.TemporaryDirectory() as tmp:
        url = srv.openai_base_url if provider == "openai" else srv.anthropic_base_url
        agent = make_llm_agent(f"{provider}:bench", base_url=url, api_key="bench", max_retries=0)
        ws = create_workspace(ROOT / "cases" / "case_01")
        limits = Limits(max_steps=steps + 5)
        try:
            with TranscriptWriter(Path(tmp) / "t.jsonl") as tr:
                task = AgentTask("case_01", ws, "system", "task", limits, tr, Toolbox(ws, tr, sandbox, limits))
                t0 = time.monotonic()
                outcome = agent.run(task)
                total = time.monotonic() - t0
                events = list(tr.events)
        finally:
            remove_workspace(ws)
    assert outcome.status == "completed", outcome
    n = steps + 1  # model calls
    command_ms = sum(e.duration_s for e in events if e.kind == "tool_result") * 1000 / n
    call_ms = [(e.latency_s - latency) * 1000 for e in events if e.kind == "model_call"]
    per_step = total / n
    return {"provider": provider, "sandbox": sandbox.name, "steps": n, "per_step_ms": per_step * 1000,
            "overhead_ms": (per_step - latency) * 1000, "command_ms": command_ms,
            "rest_ms": (per_step - latency) * 1000 - command_ms,
            "call_first_ms": statistics.mean(call_ms[:10]), "call_last_ms": statistics.mean(call_ms[-10:])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--latency", type=float, default=0.05, help="scripted server latency per call, seconds")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "agent_overhead.md")
    args = ap.parse_args()
    boxes = [PlainSandbox()]
    bwrap = get_sandbox("auto")
    if bwrap.name == "bwrap":
        boxes.insert(0, bwrap)
    measure("openai", PlainSandbox(), 3, 0.0)  # warm-up: imports, first connections
    rows = [measure(p, box, args.steps, args.latency) for box in boxes for p in ("openai", "anthropic")]
    lines = ["# LLM agent: per-step harness overhead", "",
             f"Command: `python bench/agent_overhead.py --steps {args.steps} --latency {args.latency}`", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python {platform.python_version()}, "
             f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} at the start of the run. "
             f"Each step: one model call (scripted server latency {args.latency * 1000:.0f} ms) asking for "
             "`bash true`, then running it. overhead = time per step - scripted latency; "
             "command = the sandboxed `true` (process and sandbox start-up); rest = SDK round trip over "
             "loopback, JSON, transcript writes (fsync per event), bookkeeping.", "",
             "The last two columns are the SDK call time minus the scripted latency, averaged over the first "
             "and the last 10 steps: it grows with the history because the SDK re-validates every message "
             "of the request on each call.", "",
             "| provider | sandbox | steps | per step (ms) | overhead (ms) "
            "| of which command (ms) | of which rest (ms) "
             "| call overhead, first 10 (ms) | call overhead, last 10 (ms) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['provider']} | {r['sandbox']} | {r['steps']} | {r['per_step_ms']:.1f} | "
                     f"{r['overhead_ms']:.1f} | {r['command_ms']:.1f} | {r['rest_ms']:.1f} | "
                     f"{r['call_first_ms']:.1f} | {r['call_last_ms']:.1f} |")
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()

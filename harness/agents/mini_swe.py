"""``--agent mini-swe-agent:MODEL``: mini-swe-agent 2.4.6 (PyPI), run for real in the sandbox.

It is installed in its own venv in the agents cache (``.ci/setup.d/agent_clis.sh``), not in the
harness's, because it brings litellm and its dependencies. Invocation: ``mini -m openai/MODEL
-t TASK --yolo --exit-immediately -o TRAJECTORY -l 0 -c mini.yaml`` with litellm's ``api_base``
set to the relay, ``agent.step_limit`` to ``--max-steps`` and cost tracking tolerant of unknown
models. Its trajectory JSON (written when it exits) becomes the transcript: assistant messages,
``bash`` tool calls and their results. It is only read at the end, so file edits are recorded
once, after the run, without a call id; token usage is not in the trajectory (only the number
of API calls and litellm's cost estimate), so ``--max-tokens`` cannot stop it.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.agents.base import AgentOutcome, AgentTask
from harness.agents.cli_base import (
    CONTROL_DIR,
    REPORT_INSTRUCTIONS,
    CLIRunner,
    Endpoint,
    EventSink,
    Launch,
    LogParser,
    agents_dir,
    cli_version,
    dollars,
    finish,
    with_skill_block,
)
from harness.core.errors import ConfigError

PACKAGE = "mini-swe-agent==2.4.6"
VENV = "mini-swe-venv"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def find_mini() -> Path:
    exe = agents_dir() / VENV / "bin" / "mini"
    if not exe.exists():
        raise ConfigError(f"mini-swe-agent not found at {exe}; install it with: python3 -m venv {exe.parent.parent} "
                          f"&& {exe.parent}/pip install {PACKAGE}  (or run .ci/setup.d/agent_clis.sh)")
    return exe


class _Quiet(LogParser):
    """mini prints a rich console log; the trajectory file is what is parsed."""

    def feed(self, line: str) -> None:
        if "mini-swe-agent (step" in line:
            self.sink.tally.steps += 1


def trajectory_events(sink: EventSink, traj: dict, model: str) -> None:
    """A mini-swe-agent trajectory (``messages`` in chat format, ``info.model_stats``) -> events."""
    for msg in traj.get("messages") or []:
        role = msg.get("role")
        if role == "assistant":
            content = msg.get("content")
            sink.message(content if isinstance(content, str) else json.dumps(content))
            for call in msg.get("tool_calls") or []:
                fn = call.get("function") or {}
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                except json.JSONDecodeError:
                    args = {"raw": fn.get("arguments")}
                sink.tool_call(call.get("id") or "?", fn.get("name") or "?",
                               args if isinstance(args, dict) else {"raw": args})
        elif role == "tool":
            extra = msg.get("extra") or {}
            sink.tool_result(msg.get("tool_call_id") or "?", stdout=extra.get("raw_output", msg.get("content", "")),
                             exit_code=extra.get("returncode"), error=extra.get("exception_info") or None)
        elif role == "exit":
            sink.tally.final_text = (msg.get("extra") or {}).get("exit_status")
    stats = (traj.get("info") or {}).get("model_stats") or {}
    cost = stats.get("instance_cost")
    sink.tally.cost_usd = dollars(cost) or None
    sink.tally.extra["api_calls"] = stats.get("api_calls")
    sink.usage(model, 0, 0, sink.tally.cost_usd)  # tokens are not in the trajectory


class MiniSweAgent:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 environ: dict[str, str] | None = None):
        if not model:
            raise ConfigError("agent 'mini-swe-agent:' needs a model name, e.g. mini-swe-agent:gpt-4.1")
        env = os.environ if environ is None else environ
        self.exe = find_mini()
        self.version = cli_version(self.exe.parent / "python",
                                   ("-c", "import importlib.metadata as m; print(m.version('mini-swe-agent'))"))
        self.model = model
        self.api_key = api_key or env.get("OPENAI_API_KEY", "")
        if not self.api_key:
            raise ConfigError("no API key for mini-swe-agent: set OPENAI_API_KEY "
                              "(for a local server that ignores keys, any value works)")
        self.endpoint = Endpoint.parse(base_url or DEFAULT_BASE_URL)
        self.name = f"mini-swe-agent:{model}"
        self.settings: dict[str, Any] = {"cli": "mini", "cli_version": self.version, "package": PACKAGE,
                                         "model": f"openai/{model}", "base_url": self.endpoint.url}

    def check_limits(self, limits) -> None:
        if limits.max_cost_usd is not None:
            raise ConfigError("--max-cost is not supported for mini-swe-agent here (its cost is litellm's estimate)")

    def run(self, task: AgentTask) -> AgentOutcome:
        task.transcript.append("message", role="user", content=REPORT_INSTRUCTIONS.strip())
        task = replace(task, prompt=with_skill_block(task.prompt + REPORT_INSTRUCTIONS, task.skill_text))
        runner = CLIRunner(task, agents_dir() / VENV, self.endpoint)
        sink = EventSink(task, runner.hidden)
        url = runner.model_url()
        ctl = f"{runner.tmp}/{CONTROL_DIR}"
        argv = [str(self.exe), "-m", f"openai/{self.model}", "--yolo", "--exit-immediately", "-o", f"{ctl}/traj.json",
                "-l", "0", "-c", "mini.yaml", "-c", f"model.model_kwargs.api_base={url}",
                "-c", "model.cost_tracking=ignore_errors", "-c", f"agent.step_limit={task.limits.max_steps}",
                "-c", f"environment.timeout={int(task.limits.command_timeout)}"]
        env = {"OPENAI_API_KEY": self.api_key, "MSWEA_CONFIGURED": "true",
               "MSWEA_GLOBAL_CONFIG_DIR": "{tmp}/home/mswea",
               "LITELLM_LOCAL_MODEL_COST_MAP": "True", "MSWEA_COST_TRACKING": "ignore_errors"}
        launch = Launch(argv=argv, env=env, prompt_on_stdin=False,
                        task_arg=f'-t "$(cat {shlex.quote(ctl)}/prompt.txt)"')
        res = runner.run(launch, _Quiet(sink), None)
        traj_path = runner.control / "traj.json"
        sink.track_edits = False
        try:
            trajectory_events(sink, json.loads(traj_path.read_text(encoding="utf-8")), self.settings["model"])
        except (OSError, json.JSONDecodeError) as exc:
            sink.error("cli_log", f"no readable trajectory: {exc}; stderr tail: {runner.log_text()[-1000:]}")
        return finish(task, runner, sink, res, ())


def create(spec: str, root, **options) -> MiniSweAgent:
    return MiniSweAgent(spec.partition(":")[2], base_url=options.get("base_url"))

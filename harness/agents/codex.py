"""``--agent codex[:MODEL]``: OpenAI's Codex CLI (``codex exec``), run for real in the sandbox.

Invocation: ``codex exec --json --skip-git-repo-check --ephemeral
--dangerously-bypass-approvals-and-sandbox -`` with the prompt on stdin. Codex's own sandbox is
bypassed because it cannot nest inside ours (it uses bubblewrap too); ours is the boundary. Its
``CODEX_HOME`` is a fresh folder in the sample's private home holding a ``config.toml`` whose
``model_provider`` is a ``[model_providers.mldb]`` entry with ``base_url`` (the relay),
``env_key`` and ``wire_api = "responses"``. Its ``--json`` JSONL (``item.*`` events for agent
messages, commands, file changes; ``turn.completed`` with usage) becomes transcript events.
The skill arm installs the skill in ``$CODEX_HOME/skills/NAME/``, a location Codex 0.169 loads
user skills from (outside the workspace, so it never shows in the diff).
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

from harness.agents.base import AgentOutcome, AgentTask
from harness.agents.cli_base import (
    REPORT_INSTRUCTIONS,
    CLIRunner,
    Endpoint,
    EventSink,
    Launch,
    LogParser,
    cli_version,
    count,
    find_cli,
    finish,
    install_root,
)
from harness.core.errors import ConfigError
from harness.core.skill import install_skill

PACKAGE = "@openai/codex@0.169.0"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
KEY_VAR = "MLDB_CODEX_API_KEY"  # the env_key of our provider entry, so no other OpenAI variable is needed
CODEX_HOME = "home/.codex"  # relative to the sample's private /tmp


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


class CodexJsonParser(LogParser):
    """``codex exec --json``: ``item.started``/``item.completed`` per agent message, command,
    file change, MCP call; ``turn.completed`` carries the turn's token usage."""

    def __init__(self, sink: EventSink, model: str):
        super().__init__(sink)
        self.model = model
        self.started: set[str] = set()

    def feed(self, line: str) -> None:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            return  # codex prints a few plain lines (warnings) to the same stream on some paths
        if not isinstance(obj, dict):
            return
        kind = obj.get("type", "")
        item = obj.get("item") if isinstance(obj.get("item"), dict) else {}
        if kind == "item.started":
            self.item_started(item)
        elif kind == "item.completed":
            self.item_completed(item)
        elif kind == "turn.completed":
            u = obj.get("usage") or {}
            self.sink.usage(self.model, count(u.get("input_tokens")),
                            count(u.get("output_tokens")) + count(u.get("reasoning_output_tokens")))
        elif kind in ("turn.failed", "error"):
            err = obj.get("error") if isinstance(obj.get("error"), dict) else obj
            self.sink.tally.cli_error = str(err.get("message") or err)[:1000]
            self.sink.error("cli_error", self.sink.tally.cli_error)

    def call_of(self, item: dict) -> tuple[str, dict] | None:
        t = item.get("type")
        if t == "command_execution":
            return "bash", {"command": item.get("command", "")}
        if t == "file_change":
            return "apply_patch", {"changes": item.get("changes", [])}
        if t == "mcp_tool_call":
            return f"mcp:{item.get('server')}/{item.get('tool')}", {"arguments": item.get("arguments")}
        if t == "web_search":
            return "web_search", {"query": item.get("query", "")}
        return None

    def item_started(self, item: dict) -> None:
        call = self.call_of(item)
        if call and item.get("id") not in self.started:
            self.started.add(item.get("id"))
            self.sink.tally.steps += 1
            self.sink.tool_call(item.get("id", "?"), *call)

    def item_completed(self, item: dict) -> None:
        t = item.get("type")
        if t == "agent_message":
            self.sink.message(item.get("text", ""))
            self.sink.tally.final_text = item.get("text", "")
        elif t == "reasoning":
            self.sink.tally.extra.setdefault("reasoning", []).append(item.get("text", ""))
        elif t == "error":
            self.sink.error("cli_warning", item.get("message", ""))
        elif self.call_of(item):
            self.item_started(item)
            status = item.get("status")
            if t == "command_execution":
                self.sink.tool_result(item.get("id", "?"), stdout=item.get("aggregated_output", ""),
                                      exit_code=item.get("exit_code"),
                                      error=None if status != "declined" else "declined")
            else:
                result = item.get("result") or item.get("error") or status or ""
                self.sink.tool_result(item.get("id", "?"),
                                      stdout=result if isinstance(result, str) else json.dumps(result),
                                      error="failed" if status == "failed" else None)


class CodexAgent:
    def __init__(self, model: str | None = None, base_url: str | None = None, reasoning_effort: str | None = None,
                 api_key: str | None = None, environ: dict[str, str] | None = None):
        env = os.environ if environ is None else environ
        self.exe = find_cli("codex", PACKAGE)
        self.version = cli_version(self.exe)
        self.model = model or None
        self.reasoning_effort = reasoning_effort
        self.api_key = api_key or env.get("OPENAI_API_KEY", "")
        if not self.api_key:
            raise ConfigError("no API key for codex: set OPENAI_API_KEY "
                              "(for a local server that ignores keys, any value works)")
        self.endpoint = Endpoint.parse(base_url or DEFAULT_BASE_URL)
        self.name = f"codex:{model}" if model else "codex"
        self.settings: dict[str, Any] = {"cli": "codex", "cli_version": self.version, "package": PACKAGE,
                                         "model": self.model, "base_url": self.endpoint.url, "wire_api": "responses",
                                         "reasoning_effort": reasoning_effort,
                                         "approvals": "never (--dangerously-bypass-approvals-and-sandbox)",
                                         "skill_install": "$CODEX_HOME/skills/NAME/"}

    def check_limits(self, limits) -> None:
        if limits.max_cost_usd is not None:
            raise ConfigError("--max-cost is not supported for codex (it reports no cost); use --max-tokens")

    def config_toml(self, url: str) -> str:
        lines = [f"model_provider = {_toml_str('mldb')}", 'approval_policy = "never"',
                 'sandbox_mode = "danger-full-access"', "check_for_update_on_startup = false"]
        if self.model:
            lines.insert(0, f"model = {_toml_str(self.model)}")
        if self.reasoning_effort:
            lines.append(f"model_reasoning_effort = {_toml_str(self.reasoning_effort)}")
        # no usage analytics: offline they cost a DNS timeout (~5 s) at exit, and they are not the benchmark's business
        lines += ["", "[analytics]", "enabled = false", "", "[feedback]", "enabled = false"]
        lines += ["", "[model_providers.mldb]", 'name = "mldb"', f"base_url = {_toml_str(url)}",
                  f"env_key = {_toml_str(KEY_VAR)}", 'wire_api = "responses"']
        return "\n".join(lines) + "\n"

    def run(self, task: AgentTask) -> AgentOutcome:
        task.transcript.append("message", role="user", content=REPORT_INSTRUCTIONS.strip())
        task = replace(task, prompt=task.prompt + REPORT_INSTRUCTIONS)
        runner = CLIRunner(task, install_root(self.exe), self.endpoint)
        home = runner.scratch / CODEX_HOME
        home.mkdir(parents=True, exist_ok=True)
        if task.skill_path is not None:
            install_skill(task.skill_path, home / "skills")
        sink = EventSink(task, runner.hidden)
        url = runner.model_url()
        (home / "config.toml").write_text(self.config_toml(url), encoding="utf-8")
        argv = [str(self.exe), "exec", "--json", "--skip-git-repo-check", "--ephemeral",
                "--dangerously-bypass-approvals-and-sandbox", "--color", "never", "-C", str(task.workspace), "-"]
        env = {"CODEX_HOME": "{tmp}/" + CODEX_HOME, KEY_VAR: self.api_key}
        res = runner.run(Launch(argv=argv, env=env), CodexJsonParser(sink, self.model or "codex-default"),
                         task.limits.max_steps)
        return finish(task, runner, sink, res, ())


def create(spec: str, root, **options) -> CodexAgent:
    return CodexAgent(spec.partition(":")[2] or None, base_url=options.get("base_url"),
                      reasoning_effort=options.get("reasoning_effort"))

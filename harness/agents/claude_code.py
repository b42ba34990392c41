"""``--agent claude-code[:MODEL]``: Anthropic's Claude Code CLI, run for real in the sandbox.

Invocation: ``claude -p --output-format stream-json --verbose --dangerously-skip-permissions``
with the prompt on stdin (non-interactive, no approval prompts: the sandbox is the boundary),
``ANTHROPIC_BASE_URL`` pointed at the relay, nonessential traffic and the auto-updater off.
Its stream-json log (one JSON object per line: ``system``/``assistant``/``user``/``result``)
becomes messages, tool calls, tool results and usage. The skill arm installs the skill as a
project skill, ``.claude/skills/NAME/``, which Claude Code lists to the model as a skill.
"""

from __future__ import annotations

import json
import os
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
    dollars,
    find_cli,
    finish,
    install_root,
)
from harness.core.errors import ConfigError
from harness.core.skill import install_skill

PACKAGE = "@anthropic-ai/claude-code@2.1.328"
DEFAULT_BASE_URL = "https://api.anthropic.com"
SKILLS_DIR = ".claude/skills"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c.get("text", "") for c in content if isinstance(c, dict) and c.get("type") == "text")
    return "" if content is None else json.dumps(content)


class StreamJsonParser(LogParser):
    """Claude Code's ``--output-format stream-json``: assistant turns arrive one content block per line
    (same message id), tool results as ``user`` lines, and a closing ``result`` line with totals."""

    def __init__(self, sink: EventSink):
        super().__init__(sink)
        self.seen_messages: set[str] = set()
        self.model = ""

    def feed(self, line: str) -> None:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            self.sink.error("cli_log", f"not JSON: {line[:500]}")
            return
        if not isinstance(obj, dict):
            return
        kind = obj.get("type")
        if kind == "system" and obj.get("subtype") == "init":
            self.model = obj.get("model", "")
            self.sink.tally.extra["skills_listed"] = obj.get("skills", [])
        elif kind == "assistant" and obj.get("parent_tool_use_id") is None:
            self.assistant(obj.get("message") or {})
        elif kind == "assistant":  # a sub-agent's turn: kept, marked as such
            self.assistant(obj.get("message") or {}, sub=True)
        elif kind == "user":
            self.user(obj)
        elif kind == "result":
            t = self.sink.tally
            t.final_text = obj.get("result")
            if dollars(obj.get("total_cost_usd")) is not None:
                t.cost_usd = dollars(obj["total_cost_usd"])
            if obj.get("is_error"):
                t.cli_error = f"{obj.get('subtype')}: {str(obj.get('result') or obj.get('errors'))[:500]}"

    def assistant(self, msg: dict, sub: bool = False) -> None:
        mid = msg.get("id") or ""
        if mid not in self.seen_messages:
            self.seen_messages.add(mid)
            if not sub:
                self.sink.tally.steps += 1
            u = msg.get("usage") or {}
            self.sink.usage(msg.get("model") or self.model,
                            count(u.get("input_tokens")) + count(u.get("cache_read_input_tokens"))
                            + count(u.get("cache_creation_input_tokens")),
                            count(u.get("output_tokens")))
        for block in msg.get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                self.sink.message(("[sub-agent] " if sub else "") + block.get("text", ""))
            elif block.get("type") == "tool_use":
                self.sink.tool_call(block.get("id") or "?", block.get("name") or "?", block.get("input") or {})

    def user(self, obj: dict) -> None:
        content = (obj.get("message") or {}).get("content")
        if isinstance(content, str):
            return
        meta = obj.get("tool_use_result") if isinstance(obj.get("tool_use_result"), dict) else {}
        for block in content or []:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            text = _text_of(block.get("content"))
            if block.get("is_error"):
                self.sink.tool_result(block.get("tool_use_id") or "?", stdout="", error=text or "tool error")
            elif "stdout" in meta:
                self.sink.tool_result(block.get("tool_use_id") or "?", stdout=meta.get("stdout") or "",
                                      stderr=meta.get("stderr") or "", exit_code=None if meta.get("interrupted") else 0)
            else:
                self.sink.tool_result(block.get("tool_use_id") or "?", stdout=text)


class ClaudeCodeAgent:
    def __init__(self, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
                 environ: dict[str, str] | None = None):
        env = os.environ if environ is None else environ
        self.exe = find_cli("claude", PACKAGE)
        self.version = cli_version(self.exe)
        self.model = model or None
        self.api_key = api_key or env.get("ANTHROPIC_API_KEY", "")
        if not self.api_key:
            raise ConfigError("no API key for claude-code: set ANTHROPIC_API_KEY "
                              "(for a local server that ignores keys, any value works)")
        self.endpoint = Endpoint.parse(base_url or DEFAULT_BASE_URL)
        self.name = f"claude-code:{model}" if model else "claude-code"
        self.settings: dict[str, Any] = {"cli": "claude", "cli_version": self.version, "package": PACKAGE,
                                         "model": self.model, "base_url": self.endpoint.url,
                                         "permission_mode": "bypassPermissions",
                                         "skill_install": SKILLS_DIR + "/NAME/"}

    def check_limits(self, limits) -> None:
        if limits.max_cost_usd is not None:
            raise ConfigError("--max-cost is not supported for claude-code (its cost is only known at the end); "
                              "use --max-tokens")

    def run(self, task: AgentTask) -> AgentOutcome:
        harness_paths: tuple[str, ...] = ()
        if task.skill_path is not None:
            installed = install_skill(task.skill_path, task.workspace / SKILLS_DIR)
            harness_paths = (f"{SKILLS_DIR}/{installed.name}",)
            task.tools.watcher.changes()  # the installed skill is the harness's, not an agent edit
        task.transcript.append("message", role="user", content=REPORT_INSTRUCTIONS.strip())
        task = _with_prompt(task, task.prompt + REPORT_INSTRUCTIONS)
        runner = CLIRunner(task, install_root(self.exe), self.endpoint, skill_paths=harness_paths)
        sink = EventSink(task, runner.hidden)
        url = runner.model_url()
        command_ms = str(int(task.limits.command_timeout * 1000))
        argv = [str(self.exe), "-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions",
                "--max-turns", str(task.limits.max_steps)]
        if self.model:
            argv += ["--model", self.model]
        env = {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": self.api_key,
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
               "IS_SANDBOX": "1", "BASH_DEFAULT_TIMEOUT_MS": command_ms, "BASH_MAX_TIMEOUT_MS": command_ms}
        res = runner.run(Launch(argv=argv, env=env), StreamJsonParser(sink), task.limits.max_steps)
        if sink.tally.cli_error and sink.tally.cli_error.startswith("error_max_turns") and not runner.stop_reason:
            runner.stop_reason = f"max_steps ({task.limits.max_steps}) reached (Claude Code's --max-turns)"
        elif sink.tally.cli_error:
            sink.error("cli_error", sink.tally.cli_error)
        return finish(task, runner, sink, res, harness_paths)


def _with_prompt(task: AgentTask, prompt: str) -> AgentTask:
    from dataclasses import replace
    return replace(task, prompt=prompt)


def create(spec: str, root, **options) -> ClaudeCodeAgent:
    return ClaudeCodeAgent(spec.partition(":")[2] or None, base_url=options.get("base_url"))

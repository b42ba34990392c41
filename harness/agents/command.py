"""``--agent cmd:'TEMPLATE'``: any agent CLI, as one shell command run in the sandbox.

The template is a bash command line with placeholders, filled per sample:
``{prompt_file}`` (the task prompt, with the report instructions, as a file), ``{workspace}``
(the repository to fix, also the working folder), ``{report}`` (where the report JSON goes:
``report.json`` in the workspace) and ``{base_url}`` (the model endpoint as reachable from
inside the sandbox, when ``--base-url`` is given; also exported as ``MLDB_BASE_URL``).
The command's stdout and stderr are kept raw in one ``tool_result``; edits come from the files.
"""

from __future__ import annotations

import re
from dataclasses import replace

from harness.agents.base import AgentOutcome, AgentTask
from harness.agents.cli_base import (
    CONTROL_DIR,
    REPORT_FILE,
    REPORT_INSTRUCTIONS,
    CLIRunner,
    Endpoint,
    EventSink,
    Launch,
    LogParser,
    finish,
    with_skill_block,
)
from harness.core.errors import ConfigError
from harness.isolation.execution import cap_text

PLACEHOLDERS = ("prompt_file", "workspace", "report", "base_url")
PLACEHOLDER = re.compile(r"\{([A-Za-z_]+)\}")  # only {word}: other braces (JSON, shell) stay as written


class _RawLog(LogParser):
    def feed(self, line: str) -> None:
        pass


class CommandAgent:
    def __init__(self, template: str, base_url: str | None = None):
        if not template.strip():
            raise ConfigError("agent 'cmd:' needs a command template, e.g. cmd:'my-agent --prompt {prompt_file}'")
        names = set(PLACEHOLDER.findall(template))
        unknown = names - set(PLACEHOLDERS)
        if unknown:
            raise ConfigError(f"cmd: template uses unknown placeholders {sorted(unknown)} "
                              f"(known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})")
        if "base_url" in names and not base_url:
            raise ConfigError("cmd: template uses {base_url} but no --base-url was given")
        self.template = template
        self.endpoint = Endpoint.parse(base_url) if base_url else None
        self.name = "cmd"
        self.settings = {"cli": "cmd", "template": template, "base_url": base_url}

    def check_limits(self, limits) -> None:
        """Every budget applies as given: the runner enforces steps and wall time."""

    def run(self, task: AgentTask) -> AgentOutcome:
        task.transcript.append("message", role="user", content=REPORT_INSTRUCTIONS.strip())
        task = replace(task, prompt=with_skill_block(task.prompt + REPORT_INSTRUCTIONS, task.skill_text))
        runner = CLIRunner(task, None, self.endpoint)
        sink = EventSink(task, runner.hidden)
        url = runner.model_url() or ""
        values = {"prompt_file": f"{runner.tmp}/{CONTROL_DIR}/prompt.txt", "workspace": str(task.workspace),
                  "report": str(task.workspace / REPORT_FILE), "base_url": url}
        command = PLACEHOLDER.sub(lambda m: values[m.group(1)], self.template)
        call_id = task.tools.new_call_id()
        sink.tool_call(call_id, "cmd", {"command": command})
        env = {"MLDB_BASE_URL": url} if url else {}
        res = runner.run(Launch(argv=["bash", "-c", command], env=env, prompt_on_stdin=False), _RawLog(sink), None)
        stdout, cut_out = cap_text(runner.log_text("log", cap=1 << 30).encode(), task.limits.output_cap)
        stderr, cut_err = cap_text(runner.log_text("other", cap=1 << 30).encode(), task.limits.output_cap)
        sink.tool_result(call_id, stdout=stdout, stderr=stderr, exit_code=res.exit_code, duration_s=res.duration_s)
        return finish(task, runner, sink, res, ())


def create(spec: str, root, **options) -> CommandAgent:
    return CommandAgent(spec.partition(":")[2], base_url=options.get("base_url"))

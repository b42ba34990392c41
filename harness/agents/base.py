"""The one protocol every agent adapter implements, and the recorded tools it acts through."""

from __future__ import annotations

import difflib
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.execution import DEFAULT_OUTPUT_CAP
from harness.models import Report, SampleStatus, TokenUsage
from harness.transcript import TranscriptWriter
from harness.workspace import apply_patch


@dataclass(frozen=True)
class Limits:
    """Per-sample budgets. ``None`` means no limit of that kind."""

    max_steps: int = 50
    max_wall_seconds: float = 1800.0
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    command_timeout: float = 300.0
    output_cap: int = DEFAULT_OUTPUT_CAP


class Toolbox:
    """The agent's hands: each action is run for real and recorded in the transcript as it happens."""

    def __init__(self, workspace: Path, transcript: TranscriptWriter, sandbox, limits: Limits):
        self.workspace = workspace
        self.transcript = transcript
        self.sandbox = sandbox
        self.limits = limits

    @staticmethod
    def new_call_id() -> str:
        return "call_" + uuid.uuid4().hex[:12]

    def bash(self, command: str, call_id: str | None = None, record_call: bool = True,
             timeout: float | None = None):
        """Run ``command`` in the workspace; returns the recorded ToolResultEvent.

        ``timeout`` may only shorten the per-command limit (an agent near its wall budget)."""
        call_id = call_id or self.new_call_id()
        if record_call:
            self.transcript.append("tool_call", call_id=call_id, name="bash", arguments={"command": command})
        limit = self.limits.command_timeout if timeout is None else min(timeout, self.limits.command_timeout)
        res = self.sandbox.run(command, self.workspace, limit, self.limits.output_cap)
        return self.transcript.append(
            "tool_result", call_id=call_id, stdout=res.stdout, stderr=res.stderr, exit_code=res.exit_code,
            duration_s=res.duration_s, timed_out=res.timed_out, stdout_bytes=res.stdout_bytes,
            stderr_bytes=res.stderr_bytes, truncated=res.truncated,
        )

    def apply_patch(self, patch: str, call_id: str | None = None):
        """Apply a unified diff to the workspace, recording the call, its result and one edit per file."""
        call_id = call_id or self.new_call_id()
        self.transcript.append("tool_call", call_id=call_id, name="apply_patch", arguments={"patch": patch})
        try:
            apply_patch(self.workspace, patch)
        except Exception as exc:  # the agent sees a failed patch as a tool error
            return self.transcript.append("tool_result", call_id=call_id, exit_code=1, error=str(exc))
        for path, file_diff in split_patch(patch):
            self.transcript.append("file_edit", call_id=call_id, path=path, diff=file_diff)
        return self.transcript.append("tool_result", call_id=call_id, exit_code=0, stdout="patch applied")

    def edit_file(self, path: str, old_text: str, new_text: str, call_id: str | None = None,
                  record_call: bool = True):
        """Replace the one occurrence of ``old_text`` in ``path`` (empty ``old_text``: write the whole
        file). Runs in the harness, so the path must stay inside the workspace, symlinks included."""
        call_id = call_id or self.new_call_id()
        if record_call:
            self.transcript.append("tool_call", call_id=call_id, name="edit_file",
                                   arguments={"path": path, "old_text": old_text, "new_text": new_text})
        start = time.monotonic()
        try:
            target, before, after = self._edited(path, old_text, new_text)
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            return self.transcript.append("tool_result", call_id=call_id, exit_code=1, error=str(exc),
                                          duration_s=round(time.monotonic() - start, 4))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(after, encoding="utf-8")
        rel = target.relative_to(self.workspace.resolve()).as_posix()
        diff = "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                            f"a/{rel}", f"b/{rel}"))
        self.transcript.append("file_edit", call_id=call_id, path=rel, diff=diff)
        return self.transcript.append("tool_result", call_id=call_id, exit_code=0, stdout=f"edited {rel}",
                                      duration_s=round(time.monotonic() - start, 4))

    def _edited(self, path: str, old_text: str, new_text: str) -> tuple[Path, str, str]:
        root = self.workspace.resolve()
        target = (root / path).resolve()
        if target != root and root not in target.parents:
            raise ValueError(f"path '{path}' is outside the repository")
        if target.is_dir():
            raise ValueError(f"path '{path}' is a directory")
        before = target.read_text(encoding="utf-8") if target.exists() else ""
        if not old_text:
            return target, before, new_text
        if not target.exists():
            raise ValueError(f"file '{path}' does not exist (use an empty old_text to create it)")
        count = before.count(old_text)
        if count != 1:
            raise ValueError(f"old_text occurs {count} times in '{path}'; it must occur exactly once")
        return target, before, before.replace(old_text, new_text, 1)


def split_patch(patch: str) -> list[tuple[str, str]]:
    """Split a multi-file unified diff into (path, diff) pairs."""
    files: list[tuple[str, list[str]]] = []
    for line in patch.splitlines(keepends=True):
        if line.startswith("--- ") and (not files or any(l.startswith("@@") for l in files[-1][1])):
            files.append(("", [line]))
        elif line.startswith("+++ ") and files:
            name = line[4:].split("\t")[0].strip()
            files[-1] = (name[2:] if name.startswith("b/") else name, files[-1][1] + [line])
        elif files:
            files[-1][1].append(line)
    return [(name, "".join(lines)) for name, lines in files]


@dataclass
class AgentTask:
    """Everything an agent gets for one sample. It never includes anything from answers/."""

    case_id: str
    workspace: Path
    system_prompt: str
    prompt: str
    limits: Limits
    transcript: TranscriptWriter
    tools: Toolbox


@dataclass
class AgentOutcome:
    status: SampleStatus
    report: Report | None = None
    error: str | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    tool_errors: int = 0  # malformed or failed tool calls the agent was shown


class Agent(Protocol):
    name: str
    settings: dict[str, Any]

    def run(self, task: AgentTask) -> AgentOutcome: ...

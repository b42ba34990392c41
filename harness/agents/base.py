"""The one protocol every agent adapter implements, and the recorded tools it acts through."""

from __future__ import annotations

import os
import stat
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.core.transcript import TranscriptWriter
from harness.isolation.execution import DEFAULT_OUTPUT_CAP
from harness.isolation.slots import SampleClock
from harness.models import Report, SampleStatus, TokenUsage
from harness.workspaces.snapshot import WorkspaceWatcher, tree_bytes
from harness.workspaces.workspace import apply_patch

MAX_EDIT_FILE_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Per-sample budgets. ``None`` means no limit of that kind."""

    max_steps: int = 50
    max_wall_seconds: float = 1800.0
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    command_timeout: float = 300.0
    output_cap: int = DEFAULT_OUTPUT_CAP
    max_disk_bytes: int = 2 * 1024 ** 3  # workspace + its scratch; past it the sample ends limit_reached


class Toolbox:
    """The agent's hands: each action is run for real and recorded in the transcript as it happens.

    After every action the workspace is compared with its state before (``harness.workspaces.snapshot``)
    and each changed file is recorded as a ``file_edit`` event, whichever tool changed it."""

    def __init__(self, workspace: Path, transcript: TranscriptWriter, sandbox, limits: Limits):
        self.workspace = workspace
        self.transcript = transcript
        self.sandbox = sandbox
        self.limits = limits
        self.watcher = WorkspaceWatcher(workspace)
        self.disk_problem: str | None = None

    @staticmethod
    def new_call_id() -> str:
        return "call_" + uuid.uuid4().hex[:12]

    def _record_changes(self, call_id: str) -> None:
        for path, diff in self.watcher.changes():
            self.transcript.append("file_edit", call_id=call_id, path=path, diff=diff)
        scratch = self.workspace.parent / "scratch"
        used = tree_bytes(self.workspace, *([scratch] if scratch.is_dir() else []))
        if used > self.limits.max_disk_bytes:
            self.disk_problem = f"max_disk_bytes ({self.limits.max_disk_bytes}) exceeded: {used} bytes in the workspace"

    def bash(self, command: str, call_id: str | None = None, record_call: bool = True,
             timeout: float | None = None):
        """Run ``command`` in the workspace; returns the recorded ToolResultEvent.

        ``timeout`` may only shorten the per-command limit (an agent near its wall budget)."""
        call_id = call_id or self.new_call_id()
        if record_call:
            self.transcript.append("tool_call", call_id=call_id, name="bash", arguments={"command": command})
        limit = self.limits.command_timeout if timeout is None else min(timeout, self.limits.command_timeout)
        res = self.sandbox.run(command, self.workspace, limit, self.limits.output_cap)
        self._record_changes(call_id)
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
        self._record_changes(call_id)
        return self.transcript.append("tool_result", call_id=call_id, exit_code=0, stdout="patch applied")

    def edit_file(self, path: str, old_text: str, new_text: str, call_id: str | None = None,
                  record_call: bool = True):
        """Replace the one occurrence of ``old_text`` in ``path`` (empty ``old_text``: write the whole
        file). Runs in the harness, so the path must stay inside the workspace, symlinks included,
        and must be a regular file (a FIFO would block the harness; a device could fill the disk)."""
        call_id = call_id or self.new_call_id()
        if record_call:
            self.transcript.append("tool_call", call_id=call_id, name="edit_file",
                                   arguments={"path": path, "old_text": old_text, "new_text": new_text})
        start = time.monotonic()
        try:
            target, after = self._edited(path, old_text, new_text)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(after)
        except (ValueError, OSError, UnicodeDecodeError) as exc:
            return self.transcript.append("tool_result", call_id=call_id, exit_code=1, error=str(exc),
                                          duration_s=round(time.monotonic() - start, 4))
        rel = target.relative_to(self.workspace.resolve()).as_posix()
        self._record_changes(call_id)
        return self.transcript.append("tool_result", call_id=call_id, exit_code=0, stdout=f"edited {rel}",
                                      duration_s=round(time.monotonic() - start, 4))

    def _edited(self, path: str, old_text: str, new_text: str) -> tuple[Path, str]:
        root = self.workspace.resolve()
        target = (root / path).resolve()
        if target != root and root not in target.parents:
            raise ValueError(f"path '{path}' is outside the repository")
        exists = os.path.lexists(target)
        if exists and stat.S_ISDIR(os.stat(target).st_mode):
            raise ValueError(f"path '{path}' is a directory")
        if exists and not stat.S_ISREG(os.stat(target).st_mode):
            raise ValueError(f"path '{path}' is not a regular file (a FIFO, socket or device)")
        if exists and os.stat(target).st_size > MAX_EDIT_FILE_BYTES:
            raise ValueError(f"file '{path}' is larger than {MAX_EDIT_FILE_BYTES} bytes; edit it with bash")
        before = target.read_text(encoding="utf-8") if exists else ""
        if not old_text:
            return target, new_text
        if not exists:
            raise ValueError(f"file '{path}' does not exist (use an empty old_text to create it)")
        count = before.count(old_text)
        if count != 1:
            raise ValueError(f"old_text occurs {count} times in '{path}'; it must occur exactly once")
        return target, before.replace(old_text, new_text, 1)


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
    # the skill arm only: the skill's text (already in system_prompt) and the --skill path it came from
    skill_text: str | None = None
    skill_path: Path | None = None
    # the sample's clock: elapsed time without CPU-slot waits, which --max-wall does not charge
    clock: SampleClock = field(default_factory=SampleClock)


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

    def check_limits(self, limits: Limits) -> None:
        """Refuse budgets this agent cannot keep (ConfigError), before any sample runs."""

    def run(self, task: AgentTask) -> AgentOutcome: ...

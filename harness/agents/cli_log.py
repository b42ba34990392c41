"""Following a CLI agent's native log as it is written, turning its records into transcript events."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from harness.agents.base import AgentTask

MAX_COUNT = 10**9  # tokens in one usage record; more is not a real model call
MAX_DOLLARS = 10**6


def count(value: Any) -> int:
    """A token count read from a CLI's log, which code in the sandbox can write: anything that is not a
    number in [0, MAX_COUNT] counts as 0, so a forged log cannot make a run look free or absurd."""
    try:
        n = float(value or 0)
    except (TypeError, ValueError):
        return 0
    return int(n) if math.isfinite(n) and 0 <= n <= MAX_COUNT else 0


def dollars(value: Any) -> float | None:
    """A cost read from a CLI's log: a finite number in [0, MAX_DOLLARS], else unknown (None)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 <= value <= MAX_DOLLARS else None



@dataclass
class Tally:
    """What a parser has counted so far, for the budgets and the outcome."""

    steps: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    last_assistant: str = ""
    final_text: str | None = None
    cli_error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class EventSink:
    """How a parser writes transcript events: tool results also record the workspace's changes."""

    def __init__(self, task: AgentTask, hidden: Callable[[str], bool]):
        self.task = task
        self.tr = task.transcript
        self.hidden = hidden
        self.tally = Tally()
        self.open_calls: set[str] = set()
        # False when the log is only read after the CLI exited: changes are then recorded once, at the end
        self.track_edits = True

    def message(self, text: str, role: str = "assistant") -> None:
        if text and text.strip():
            self.tr.append("message", role=role, content=text)
            if role == "assistant":
                self.tally.last_assistant = text

    def tool_call(self, call_id: str, name: str, arguments: dict) -> None:
        self.open_calls.add(call_id)
        self.tr.append("tool_call", call_id=call_id, name=name,
                       arguments=arguments if isinstance(arguments, dict) else {"input": arguments})

    def tool_result(self, call_id: str, stdout: str = "", stderr: str = "", exit_code: int | None = None,
                    error: str | None = None, duration_s: float = 0.0) -> None:
        self.open_calls.discard(call_id)
        if self.track_edits:
            self.record_changes(call_id)
        self.tr.append("tool_result", call_id=call_id, stdout=stdout or "", stderr=stderr or "",
                       exit_code=exit_code, error=error, duration_s=duration_s,
                       stdout_bytes=len((stdout or "").encode()), stderr_bytes=len((stderr or "").encode()))

    def usage(self, model: str, input_tokens: int, output_tokens: int, cost_usd: float | None = None) -> None:
        input_tokens, output_tokens, cost_usd = count(input_tokens), count(output_tokens), dollars(cost_usd)
        self.tally.input_tokens += input_tokens
        self.tally.output_tokens += output_tokens
        self.tr.append("usage", model=model or "?", input_tokens=input_tokens, output_tokens=output_tokens,
                       cost_usd=cost_usd)

    def error(self, error_type: str, message: str) -> None:
        self.tr.append("error", error_type=error_type, message=message[:4000])

    def record_changes(self, call_id: str | None) -> None:
        """One ``file_edit`` per file changed since the last look, except the harness's own files."""
        for path, diff in self.task.tools.watcher.changes():
            if not self.hidden(path):
                self.tr.append("file_edit", call_id=call_id, path=path, diff=diff)


class LogParser:
    """One per sample: fed each complete line of the CLI's log, in order."""

    def __init__(self, sink: EventSink):
        self.sink = sink

    def feed(self, line: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def finish(self) -> None:
        """Called once after the CLI exited and the log was read to its end."""


class LogFollower:
    """Reads a growing file line by line from another thread's point of view: call ``poll()``."""

    def __init__(self, path: Path, feed: Callable[[str], None]):
        self.path, self.feed = path, feed
        self.offset = 0
        self.partial = b""

    def poll(self, final: bool = False) -> None:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        self.offset += len(data)
        data = self.partial + data
        lines = data.split(b"\n")
        self.partial = lines.pop()
        if final and self.partial:
            lines.append(self.partial)
            self.partial = b""
        for raw in lines:
            if raw.strip():
                self.feed(raw.decode("utf-8", errors="replace"))

"""The transcript's events, one JSON line each (``EventLine`` reads any of them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from harness.core.case_records import Report
from harness.core.record import Record


class EventBase(Record):
    id: int = Field(ge=0, description="position in the transcript, 0-based, strictly increasing")
    t: float = Field(description="seconds since the sample started")


class MessageEvent(EventBase):
    kind: Literal["message"] = "message"
    role: Literal["system", "user", "assistant"]
    content: str


class ToolCallEvent(EventBase):
    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    name: str
    arguments: dict[str, Any]


class ToolResultEvent(EventBase):
    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    duration_s: float = 0.0
    timed_out: bool = False
    stdout_bytes: int = Field(default=0, description="bytes the command really wrote, before the cap")
    stderr_bytes: int = 0
    truncated: bool = Field(default=False, description="True when stdout or stderr was cut to the cap")
    error: str | None = Field(default=None, description="a tool error shown to the agent (bad arguments, ...)")


class FileEditEvent(EventBase):
    kind: Literal["file_edit"] = "file_edit"
    call_id: str | None = None
    path: str
    diff: str


class ModelCallEvent(EventBase):
    """One request/response pair with an LLM, as sent and received."""

    kind: Literal["model_call"] = "model_call"
    provider: str
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    error: str | None = None
    latency_s: float = 0.0


class UsageEvent(EventBase):
    kind: Literal["usage"] = "usage"
    model: str
    input_tokens: int = Field(default=0, description="every input token, the cached ones included")
    output_tokens: int = 0
    cache_read_tokens: int = Field(default=0, description="input tokens read from the prompt cache")
    cache_write_tokens: int = Field(default=0, description="input tokens written to the prompt cache")
    cost_usd: float | None = Field(default=None, description="None when the model's price is unknown")


class ReportEvent(EventBase):
    kind: Literal["report"] = "report"
    report: Report


class ErrorEvent(EventBase):
    kind: Literal["error"] = "error"
    error_type: str
    message: str


Event = Annotated[
    Union[MessageEvent, ToolCallEvent, ToolResultEvent, FileEditEvent, ModelCallEvent, UsageEvent, ReportEvent,
          ErrorEvent],
    Field(discriminator="kind"),
]


class EventLine(Record):
    """Wrapper used to parse one JSONL line into the right event type."""

    event: Event

"""ATIF (Harbor's Agent Trajectory Interchange Format) read into our transcript events.

The models mirror the fields of Harbor's ``harbor.models.trajectories`` that a transcript needs
(schema ATIF-v1.0 to v1.6, read from laude-institute/harbor's RFC 0001 and its pydantic models);
fields we do not use are allowed, so a newer minor version still imports. Nothing here runs code
from the trajectory: it is data the agent's harness wrote, and may be forged or malformed.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.core.errors import InputError
from harness.models import Report

MAX_TRAJECTORY_BYTES = 50_000_000  # a trajectory larger than this is refused rather than read into memory
MAX_TEXT_CHARS = 200_000  # one message or observation, as kept in the transcript


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class AtifAgent(_Open):
    name: str
    version: str | None = None
    model_name: str | None = None


class AtifToolCall(_Open):
    tool_call_id: str
    function_name: str
    arguments: Any = None


class AtifObservationResult(_Open):
    source_call_id: str | None = None
    content: Any = None  # str, or a list of content parts (ATIF-v1.6)


class AtifObservation(_Open):
    results: list[AtifObservationResult] = Field(default_factory=list)


class AtifMetrics(_Open):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None


class AtifStep(_Open):
    step_id: int
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    message: Any = None  # str, or a list of content parts (ATIF-v1.6)
    reasoning_content: str | None = None
    tool_calls: list[AtifToolCall] | None = None
    observation: AtifObservation | None = None
    metrics: AtifMetrics | None = None


class Trajectory(_Open):
    schema_version: str = Field(pattern=r"^ATIF-v\d+\.\d+$")
    session_id: str | None = None
    agent: AtifAgent
    steps: list[AtifStep]


def read_trajectory(path: Path) -> Trajectory:
    """The trajectory in ``path``; anything unreadable is an InputError naming the file and the field."""
    path = Path(path)
    if path.is_symlink() or not path.is_file():
        raise InputError(path, "no trajectory (expected a regular file agent/trajectory.json)")
    if path.stat().st_size > MAX_TRAJECTORY_BYTES:
        raise InputError(path, f"larger than {MAX_TRAJECTORY_BYTES} bytes; refused")
    try:
        return Trajectory.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise InputError(path, f"not an ATIF trajectory: field {where}: {err['msg']}") from exc


def text_of(content: Any) -> str:
    """A message or observation as text: content parts (ATIF-v1.6) keep their text, images are named."""
    if content is None:
        return ""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, dict):
                parts.append(f"[{part.get('type', 'part')}]")
            else:
                parts.append(str(part))
        text = "\n".join(parts)
    else:
        text = json.dumps(content, default=str)
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS] + "\n[... cut by the import ...]"


def _seconds(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
            if isinstance(parsed, dict):
                return parsed
        except json.JSONDecodeError:
            pass
    return {"value": value}


def report_from_calls(trajectory: Trajectory) -> Report | None:
    """The report of the last ``submit_report`` tool call, when the agent used our tool's name."""
    for step in reversed(trajectory.steps):
        for call in reversed(step.tool_calls or []):
            if call.function_name == "submit_report":
                args = {k: v if isinstance(v, str) else json.dumps(v) for k, v in _arguments(call.arguments).items()
                        if k in Report.model_fields}
                try:
                    return Report.model_validate(args)
                except ValidationError:
                    return None
    return None


def append_events(trajectory: Trajectory, transcript) -> None:
    """Append the trajectory's steps to ``transcript`` (a TranscriptWriter) as our events: messages, tool
    calls, their results and token usage, stamped with seconds since the first step."""
    start = None
    last_t = 0.0
    default_model = trajectory.agent.model_name or trajectory.agent.name
    for step in trajectory.steps:
        at = _seconds(step.timestamp)
        if at is not None and start is None:
            start = at
        t = last_t if at is None or start is None else max(last_t, round(at - start, 4))
        last_t = t
        role = {"system": "system", "user": "user", "agent": "assistant"}[step.source]
        text = text_of(step.message)
        if text or not step.tool_calls:
            transcript.append("message", role=role, content=text, t=t)
        for call in step.tool_calls or []:
            transcript.append("tool_call", call_id=call.tool_call_id, name=call.function_name,
                              arguments=_arguments(call.arguments), t=t)
        for i, result in enumerate((step.observation.results if step.observation else []) or []):
            call_id = result.source_call_id or f"step{step.step_id}-observation{i}"
            transcript.append("tool_result", call_id=call_id, stdout=text_of(result.content), t=t)
        m = step.metrics
        if m is not None and (m.prompt_tokens or m.completion_tokens or m.cost_usd):
            transcript.append("usage", model=step.model_name or default_model, input_tokens=m.prompt_tokens or 0,
                              output_tokens=m.completion_tokens or 0, cost_usd=m.cost_usd, t=t)

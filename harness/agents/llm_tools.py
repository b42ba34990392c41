"""The LLM agent's three tools: their schemas, argument checking, and what the model reads back.

Arguments are validated with pydantic; anything malformed (bad JSON, missing or unknown
fields) becomes a ``ToolArgumentError`` that the loop shows the model as a tool error.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.models import Report

BASH, EDIT, SUBMIT = "bash", "edit_file", "submit_report"


class BashArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(min_length=1, description="a bash command line, run in the repository")


class EditArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(min_length=1, description="file path relative to the repository")
    old_text: str = Field(description="exact text to replace, occurring once; empty to write the whole file")
    new_text: str = Field(description="the replacement text (or the whole file when old_text is empty)")


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None), schema.pop("description", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


TOOLS: list[dict[str, Any]] = [
    {"name": BASH, "parameters": _schema(BashArgs),
     "description": "Run a bash command in the repository and get its stdout, stderr, exit code and duration."},
    {"name": EDIT, "parameters": _schema(EditArgs),
     "description": "Edit a file in the repository: replace old_text (which must occur exactly once) with new_text."},
    {"name": SUBMIT, "parameters": _schema(Report),
     "description": "Submit your final report. Call it exactly once, when you are done; it ends the session."},
]
ARGS = {BASH: BashArgs, EDIT: EditArgs, SUBMIT: Report}


class ToolArgumentError(ValueError):
    """The model's tool call cannot be run as given; the model is told why."""


def recorded_arguments(raw: str | dict[str, Any]) -> dict[str, Any]:
    """The arguments as a dict for the transcript; unparseable input is kept verbatim under ``_raw``."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_raw": raw}


def parse_arguments(name: str, raw: str | dict[str, Any]) -> BaseModel:
    if name not in ARGS:
        raise ToolArgumentError(f"unknown tool '{name}' (available: {', '.join(ARGS)})")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolArgumentError(f"arguments of {name} are not valid JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise ToolArgumentError(f"arguments of {name} must be a JSON object, got {type(raw).__name__}")
    try:
        return ARGS[name].model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors())
        raise ToolArgumentError(f"invalid arguments for {name}: {problems}") from exc


def result_text(event, tool: str = BASH) -> str:
    """A tool result as the model reads it."""
    if event.error:
        return f"error: {event.error}"
    if tool != BASH:
        return event.stdout
    head = f"exit code: {event.exit_code if not event.timed_out else 'timed out'}\nduration: {event.duration_s:.2f}s"
    return f"{head}\nstdout:\n{event.stdout}\nstderr:\n{event.stderr}"

"""An Inspect AI sample's messages as our transcript events (shared by the task's scorers and ``import inspect``).

Inspect records chat messages; the files each tool call changed are recorded by our solver in the sample's
store (``FILE_EDITS``, made like our watcher's ``file_edit`` events) and placed after that call's result.
Only plain data is read here (dicts or Inspect's pydantic messages), so a log from another version still reads.
"""

from __future__ import annotations

import json
from typing import Any

from harness.models import Report

FILE_EDITS = "mldb_file_edits"  # store key: [{"call_id", "path", "diff"}] in the order they happened
REPORT_TOOL = "submit_report"
MAX_TEXT_CHARS = 200_000


def _plain(message: Any) -> dict:
    return message if isinstance(message, dict) else message.model_dump(mode="json")


def text_of(content: Any) -> str:
    """Message content as text: a string, or Inspect's content parts (text kept, reasoning and media named)."""
    if content is None:
        return ""
    if isinstance(content, str):
        text = content
    else:
        parts = []
        for part in content:
            part = part if isinstance(part, dict) else part.model_dump(mode="json")
            if part.get("type") == "text":
                parts.append(part.get("text") or "")
            elif part.get("type") != "reasoning":  # the model's hidden reasoning is not what it said or did
                parts.append(f"[{part.get('type', 'part')}]")
        text = "\n".join(parts)
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS] + "\n[... cut by the import ...]"


def _arguments(value: Any) -> dict:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
            return parsed if isinstance(parsed, dict) else {"value": parsed}
        except json.JSONDecodeError:
            pass
    return {"value": value}


def report_of(messages: list) -> Report | None:
    """The report of the last ``submit_report`` call."""
    for message in reversed(messages):
        m = _plain(message)
        for call in reversed(m.get("tool_calls") or []):
            if call.get("function") == REPORT_TOOL:
                args = {k: v if isinstance(v, str) else json.dumps(v)
                        for k, v in _arguments(call.get("arguments")).items() if k in Report.model_fields}
                try:
                    return Report.model_validate(args)
                except ValueError:
                    return None
    return None


def append_messages(messages: list, file_edits: list[dict], transcript) -> None:
    """Append ``messages`` (and the recorded file edits, each after its call's result) to a TranscriptWriter."""
    edits_by_call: dict[str, list[dict]] = {}
    for edit in file_edits or []:
        edits_by_call.setdefault(str(edit.get("call_id")), []).append(edit)
    for message in messages:
        m = _plain(message)
        role = m.get("role")
        if role in ("system", "user"):
            transcript.append("message", role=role, content=text_of(m.get("content")))
        elif role == "assistant":
            text = text_of(m.get("content"))
            calls = m.get("tool_calls") or []
            if text or not calls:
                transcript.append("message", role="assistant", content=text)
            for call in calls:
                transcript.append("tool_call", call_id=str(call.get("id")), name=str(call.get("function")),
                                  arguments=_arguments(call.get("arguments")))
        elif role == "tool":
            call_id = str(m.get("tool_call_id"))
            error = m.get("error")
            transcript.append("tool_result", call_id=call_id, stdout=text_of(m.get("content")),
                              error=(error.get("message") if isinstance(error, dict) else None))
            for edit in edits_by_call.pop(call_id, []):
                transcript.append("file_edit", call_id=call_id, path=str(edit.get("path")), diff=str(edit.get("diff")))
    for rest in edits_by_call.values():  # edits made outside any tool call (none in our solver)
        for edit in rest:
            transcript.append("file_edit", call_id=None, path=str(edit.get("path")), diff=str(edit.get("diff")))

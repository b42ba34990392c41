"""The judge's view of a transcript: blind, numbered, compacted but never summarised.

Agent messages, tool calls (commands, full diffs) and reports are kept verbatim. Only
long tool outputs are cut, to head and tail with an elision marker, so every quote the
judge copies from what it sees is still a substring of the raw event. The system prompt
(which carries any skill text) and raw model calls are dropped: the judge must not know
which condition produced the transcript.
"""

from __future__ import annotations

import json
import re

HEAD_LINES = 40
TAIL_LINES = 40
MAX_CHARS = 6000  # per output stream, after line elision (a few giant lines can still be huge)
HIDDEN_KINDS = {"model_call", "usage"}
SKILL_BLOCK = re.compile(r"<skill>.*?</skill>", re.S)


def visible(ev) -> bool:
    """Events the judge may see and cite."""
    if ev.kind in HIDDEN_KINDS:
        return False
    return not (ev.kind == "message" and ev.role == "system")


def elide(text: str, head: int = HEAD_LINES, tail: int = TAIL_LINES, max_chars: int = MAX_CHARS) -> str:
    lines = text.splitlines()
    if len(lines) > head + tail:
        n = len(lines) - head - tail
        text = "\n".join(lines[:head] + [f"[… {n} lines elided …]"] + lines[-tail:])
    if len(text) > max_chars:
        n = len(text) - max_chars
        text = text[: max_chars // 2] + f"\n[… {n} characters elided …]\n" + text[-max_chars // 2:]
    return text


def _arguments(ev) -> str:
    args = ev.arguments
    if set(args) == {"command"} and isinstance(args["command"], str):
        return args["command"]
    return "\n".join(f"{k}: {v if isinstance(v, str) else json.dumps(v)}" for k, v in args.items())


def render_event(ev, call_index: dict[str, int]) -> str:
    if ev.kind == "message":
        content = SKILL_BLOCK.sub("", ev.content) if ev.role == "user" else ev.content
        return f"[E{ev.id}] {ev.role}:\n{content}"
    if ev.kind == "tool_call":
        return f"[E{ev.id}] tool_call {ev.name}:\n{_arguments(ev)}"
    if ev.kind == "tool_result":
        of = f" of E{call_index[ev.call_id]}" if ev.call_id in call_index else ""
        facts = [f"exit {ev.exit_code}"] + ["timed out"] * ev.timed_out + ["output capped by the harness"] * ev.truncated
        parts = [f"[E{ev.id}] tool_result{of} ({', '.join(facts)}):"]
        if ev.error:
            parts.append(f"error: {ev.error}")
        for name in ("stdout", "stderr"):
            text = getattr(ev, name)
            if text.strip():
                parts.append(f"{name}:\n{elide(text)}")
        return "\n".join(parts)
    if ev.kind == "file_edit":
        return f"[E{ev.id}] file_edit {ev.path}:\n{ev.diff}"
    if ev.kind == "report":
        r = ev.report
        return (f"[E{ev.id}] final report:\nroot_cause: {r.root_cause}\nlocation: {r.location}\n"
                f"fix: {r.fix}\nevidence: {r.evidence}")
    if ev.kind == "error":
        return f"[E{ev.id}] harness error ({ev.error_type}):\n{elide(ev.message)}"
    raise ValueError(f"unknown event kind {ev.kind}")


def compact(events) -> str:
    """The numbered transcript text placed in the middle of every judge prompt."""
    call_index = {ev.call_id: ev.id for ev in events if ev.kind == "tool_call"}
    return "\n\n".join(render_event(ev, call_index) for ev in events if visible(ev))


def agent_acted(events) -> bool:
    """False when the agent produced nothing at all (no message, call, edit or report)."""
    return any((ev.kind == "message" and ev.role == "assistant") or ev.kind in {"tool_call", "file_edit", "report"}
               for ev in events)

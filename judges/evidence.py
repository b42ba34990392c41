"""Checks the judge cannot talk its way past: who wrote the cited event, the quote, executed calls, order.

A citation counts only when it names an event the agent authored (``compaction.agent_authored``)
and its quote, after whitespace and Unicode normalisation, is a verbatim substring of that event
either as recorded or as the judge was shown it (labels such as ``root_cause:`` included, but
never across an elision marker, and with some of the event's own content in it). Which calls
ran, what counts as an edit, and whether localization came before the first behaviour-changing
edit are computed here from the events, not taken from the model.
"""

from __future__ import annotations

import json
import unicodedata

from judges.compaction import CONTENT, CUT, SKILL_BLOCK, View, agent_authored

MIN_QUOTE_CHARS = 20
MIN_CONTENT_CHARS = 10  # a quote of the rendered view must hold this much of the event's own content
_TYPOGRAPHY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "..."})


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY)
    return " ".join(text.split())


def raw_text(ev) -> str:
    """All the words an event holds, as recorded."""
    if ev.kind == "message":
        return SKILL_BLOCK.sub("", ev.content) if ev.role == "user" else ev.content
    if ev.kind == "tool_call":
        return "\n".join(v if isinstance(v, str) else json.dumps(v) for v in ev.arguments.values())
    if ev.kind == "tool_result":
        return "\n".join(x for x in (ev.error, ev.stdout, ev.stderr) if x)
    if ev.kind == "file_edit":
        return ev.path + "\n" + ev.diff
    if ev.kind == "report":
        r = ev.report
        return "\n".join((r.root_cause, r.location, r.fix, r.evidence))
    if ev.kind == "error":
        return ev.message
    return ""


def _normalised_runs(segments) -> list[tuple[str, list[bool]]]:
    """The rendered event as normalised text runs split at elision markers, each with a per-character
    flag: True where the character is the event's own content, False for harness labels and spaces."""
    runs, chars, mask = [], [], []
    for text, kind in segments + [("", CUT)]:
        if kind == CUT:
            runs.append((chars, mask))
            chars, mask = [], []
            continue
        for ch in unicodedata.normalize("NFKC", text).translate(_TYPOGRAPHY):
            chars.append(ch)
            mask.append(kind == CONTENT)
    out = []
    for chars, mask in runs:
        s, m, space = [], [], False
        for ch, own in zip(chars, mask):
            if ch.isspace():
                space = bool(s)
                continue
            if space:
                s.append(" ")
                m.append(False)
                space = False
            s.append(ch)
            m.append(own)
        out.append(("".join(s), m))
    return out


def quote_shown(segments, quote: str) -> bool:
    """Is ``quote`` in the rendered event (not across a cut), holding enough of the event's own words?"""
    q = normalise(quote)
    if not q:
        return False
    content = sum(len("".join(t.split())) for t, kind in segments if kind == CONTENT)
    need = min(MIN_CONTENT_CHARS, content)
    for text, mask in _normalised_runs(segments):
        start = text.find(q)
        while start != -1:
            if need and sum(mask[start:start + len(q)]) >= need:
                return True
            start = text.find(q, start + 1)
    return False


def check_citations(events, view: View, citations, *, require_one: bool) -> list[str]:
    """Problems with ``citations`` ([(event_id, quote)]); empty means every citation is acceptable."""
    by_id = {ev.id: ev for ev in events if ev.id in view.segments}
    problems = []
    if require_one and not citations:
        problems.append("a pass must cite at least one event with a verbatim quote")
    for i, (event_id, quote) in enumerate(citations):
        ev = by_id.get(event_id)
        if ev is None:
            problems.append(f"evidence[{i}]: E{event_id} is not an event of the transcript")
            continue
        if not agent_authored(ev):
            problems.append(f"evidence[{i}]: E{event_id} was written by the harness, not the agent; cite only the "
                            "agent's messages, tool calls, tool results, file edits or final report")
            continue
        q, text = normalise(quote), normalise(raw_text(ev))
        if len(q) < MIN_QUOTE_CHARS and q != text:
            problems.append(f"evidence[{i}]: the quote is {len(q)} characters; quote at least {MIN_QUOTE_CHARS} "
                            "consecutive characters (or the whole event when it is shorter)")
        elif q not in text and not quote_shown(view.segments[event_id], quote):
            problems.append(f"evidence[{i}]: the quote is not a verbatim substring of E{event_id} ({ev.kind}) "
                            "as shown; "
                            "copy the words exactly as they appear in that event, without crossing an elision marker")
    return problems


def final_statements(events) -> set[int]:
    """The agent's final committed word: its report, or its last message when it submitted none."""
    reports = {ev.id for ev in events if ev.kind == "report"}
    said = [ev.id for ev in events if ev.kind == "message" and ev.role == "assistant"]
    return reports or set(said[-1:])


def call_of(events) -> dict[int, int]:
    """tool_result event id -> id of the tool_call that produced it."""
    calls = {ev.call_id: ev.id for ev in events if ev.kind == "tool_call"}
    return {ev.id: calls[ev.call_id] for ev in events if ev.kind == "tool_result" and ev.call_id in calls}


def executed_calls(events) -> set[int]:
    """Ids of tool_call events that have a tool_result without a tool error."""
    done = {ev.call_id for ev in events if ev.kind == "tool_result" and ev.error is None}
    return {ev.id for ev in events if ev.kind == "tool_call" and ev.call_id in done}


def edit_events(events) -> list[int]:
    """The edits the judge labels: every ``file_edit`` event, which the harness records from the files
    after each tool call, whichever tool (edit_file, sed -i, perl -pi, a Python one-liner) made it."""
    return [ev.id for ev in events if ev.kind == "file_edit"]


def edit_calls(events) -> dict[int, int]:
    """file_edit event id -> id of the tool_call that made the change (the edit happened when that call ran)."""
    calls = {ev.call_id: ev.id for ev in events if ev.kind == "tool_call"}
    return {ev.id: calls[ev.call_id] for ev in events if ev.kind == "file_edit" and ev.call_id in calls}


def localized_before_change(localizing_event: int | None, behaviour_edits: list[int],
                            made_by: dict[int, int] | None = None) -> tuple[bool, str]:
    """The order fact: the first localizing event comes before the first behaviour-changing edit, where an
    edit counts from the tool call that made it (``made_by``), so the edit's own call cannot localize it."""
    if localizing_event is None:
        return False, "no localizing event was cited"
    if not behaviour_edits:
        return True, f"localized at E{localizing_event}; no behaviour-changing edit"
    made_by = made_by or {}
    first = min(behaviour_edits, key=lambda e: made_by.get(e, e))
    at = made_by.get(first, first)
    by = f" (made by E{at})" if at != first else ""
    if localizing_event < at:
        return True, f"localized at E{localizing_event}, before the first behaviour-changing edit E{first}{by}"
    return False, f"first behaviour-changing edit E{first}{by} came before localizing at E{localizing_event}"

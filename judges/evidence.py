"""Checks the judge cannot talk its way past: quotes, executed calls and event order.

Every cited quote must be a normalised verbatim substring of the cited event in the
*raw* transcript; "ran the test" and "localized before change" are computed here from
the events, not taken from the model.
"""

from __future__ import annotations

import json
import re
import unicodedata

from judges.compaction import SKILL_BLOCK, visible

MIN_QUOTE_CHARS = 20
_TYPOGRAPHY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "…": "..."})
# Shell commands that may write a file: they are offered to the judge to label.
_WRITES = re.compile(r"\bsed\s+-i|\btee\b|(?<![0-9&])>{1,2}\s*(?!/dev/null)[\w./-]|\bpatch\b|\bgit\s+(apply|checkout|restore)|"
                     r"\b(mv|cp|rm)\s|open\([^)]*['\"][wa]['\"]|write_text\(|\bperl\s+-pi")


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


def check_citations(events, citations, *, require_one: bool) -> list[str]:
    """Problems with ``citations`` ([(event_id, quote)]); empty means every quote verified."""
    by_id = {ev.id: ev for ev in events if visible(ev)}
    problems = []
    if require_one and not citations:
        problems.append("a pass must cite at least one event with a verbatim quote")
    for i, (event_id, quote) in enumerate(citations):
        ev = by_id.get(event_id)
        if ev is None:
            problems.append(f"evidence[{i}]: E{event_id} is not an event of the transcript")
            continue
        q, text = normalise(quote), normalise(raw_text(ev))
        if len(q) < MIN_QUOTE_CHARS and q != text:
            problems.append(f"evidence[{i}]: the quote is {len(q)} characters; quote at least {MIN_QUOTE_CHARS} "
                            "consecutive characters (or the whole event when it is shorter)")
        elif q not in text:
            problems.append(f"evidence[{i}]: the quote is not a verbatim substring of E{event_id} ({ev.kind}); "
                            "copy the words exactly as they appear in that event")
    return problems


def executed_calls(events) -> set[int]:
    """Ids of tool_call events that have a tool_result without a tool error."""
    done = {ev.call_id for ev in events if ev.kind == "tool_result" and ev.error is None}
    return {ev.id for ev in events if ev.kind == "tool_call" and ev.call_id in done}


def edit_candidates(events) -> list[int]:
    """Events that change files or may do so: every file_edit, and tool calls that look like writes.

    The judge must label each one as behaviour-changing or instrumentation.
    """
    edited_calls = {ev.call_id for ev in events if ev.kind == "file_edit" and ev.call_id}
    out = []
    for ev in events:
        if ev.kind == "file_edit":
            out.append(ev.id)
        elif ev.kind == "tool_call" and ev.call_id not in edited_calls:
            if ev.name == "bash":
                if _WRITES.search(raw_text(ev)):
                    out.append(ev.id)
            elif any(word in ev.name.lower() for word in ("patch", "write", "edit", "replace", "create")):
                out.append(ev.id)
    return out


def localized_before_change(localizing_event: int | None, behaviour_edits: list[int]) -> tuple[bool, str]:
    """The order fact: the first localizing event comes before the first behaviour-changing edit."""
    if localizing_event is None:
        return False, "no localizing event was cited"
    if not behaviour_edits:
        return True, f"localized at E{localizing_event}; no behaviour-changing edit"
    first = min(behaviour_edits)
    if localizing_event < first:
        return True, f"localized at E{localizing_event}, before the first behaviour-changing edit E{first}"
    return False, f"first behaviour-changing edit E{first} came before localizing at E{localizing_event}"

"""The judge's view of a transcript: blind, numbered, bounded, and impossible for the agent to forge.

Every event is rendered as a header the harness writes (``[E17] tool_result of E16 (exit 0):``)
and the event's own content. Content is escaped so that nothing in it can pass for structure:
an ``[E40]`` inside a command's output becomes ``[~E40]``, a ``<transcript`` or ``</answer_key``
tag becomes ``<~transcript``, an elision marker becomes ``[~…``. The prompt wraps the whole
view in a boundary tag with a random id (``judges.rubric``), so the agent cannot close it.

Long content is cut to head and tail with a marker, never summarised. Two limits apply: tool
outputs, diffs and edit arguments keep at most 40 head and 40 tail lines and 6000 characters
each; and the whole view must fit a character budget (the judge's input cap). To meet the
budget every content field gets the same allowance ("water level"), the agent's own words
(messages, commands, the report) four times that of outputs, edits and diffs, and the largest
allowance that fits is used: short fields stay whole, only long ones are cut.

The view keeps each event's segments (label, content, cut marker), so a quote the judge copies
can be checked against exactly what it was shown (``judges.evidence``). The system prompt, the
skill text and raw model calls are dropped: the judge must not know the condition.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

HEAD_LINES = 40
TAIL_LINES = 40
MAX_CHARS = 6000  # per output, diff or edit argument, after line elision
MIN_LEVEL = 120  # the allowance per output field never drops below this, whatever the budget
VERBATIM_WEIGHT = 4  # the agent's messages, commands and report get this many times the allowance
HIDDEN_KINDS = {"model_call", "usage"}
SKILL_BLOCK = re.compile(r"<skill>.*?</skill>", re.S)
MARKER_LIKE = re.compile(r"\[(?=E\d+\])|<(?=/?\s*(?:transcript|answer_key|hunks))|\[(?=…)", re.I)

LABEL, CONTENT, CUT = "label", "content", "cut"
Segment = tuple[str, str]  # (text, kind)


def escape(text: str) -> str:
    """Content with everything that looks like an event marker, a block tag or an elision marker defused."""
    return MARKER_LIKE.sub(lambda m: m.group(0) + "~", text)


def submit_calls_with_report(events) -> set[int]:
    """submit_report tool calls directly followed by their report event: the report says it all."""
    reports = {ev.id for ev in events if ev.kind == "report"}
    return {ev.id for ev in events if ev.kind == "tool_call" and ev.name == "submit_report" and ev.id + 1 in reports}


def visible(ev, hidden_ids: frozenset | set = frozenset()) -> bool:
    """Events the judge may see."""
    if ev.kind in HIDDEN_KINDS or ev.id in hidden_ids:
        return False
    return not (ev.kind == "message" and ev.role == "system")


def agent_authored(ev) -> bool:
    """Events that hold the agent's own doing: its messages, tool calls and their results, the file
    changes they made, its report. Only these can be evidence (harness text never counts)."""
    return (ev.kind == "message" and ev.role == "assistant") or ev.kind in {"tool_call", "tool_result", "file_edit",
                                                                           "report"}


def cut(text: str, max_chars: int, head_lines: int | None = None, tail_lines: int | None = None) -> list[Segment]:
    """``text`` as content segments, cut to head and tail around a marker when it is too long.

    Whole lines are kept where they fit (at most ``head_lines`` / ``tail_lines``); a text whose
    first line alone is too long is cut by characters."""
    lines = text.splitlines(keepends=True)
    too_many = head_lines is not None and len(lines) > head_lines + (tail_lines or 0)
    if len(text) <= max_chars and not too_many:
        return [(text, CONTENT)]
    half = max(1, max_chars // 2)
    head, used = [], 0
    for line in lines[:head_lines if head_lines is not None else len(lines)]:
        if used + len(line) > half:
            break
        head.append(line)
        used += len(line)
    rest = lines[len(head):]
    tail, used = [], 0
    for line in reversed(rest[-tail_lines:] if tail_lines else rest):
        if used + len(line) > half:
            break
        tail.insert(0, line)
        used += len(line)
    n = len(lines) - len(head) - len(tail)
    if not head:
        keep = max(1, min(half, len(text) // 2))
        return [(text[:keep], CONTENT), (f"\n[… {len(text) - 2 * keep} characters elided …]\n", CUT),
                (text[-keep:], CONTENT)]
    segs = [("".join(head), CONTENT), (f"[… {n} lines elided …]\n", CUT)]
    return segs + ([("".join(tail), CONTENT)] if tail else [])


@dataclass
class _Field:
    text: str
    weight: int  # VERBATIM_WEIGHT for the agent's own words, 1 for outputs, edits and diffs
    lines: bool  # output-like: also limited to head/tail lines and MAX_CHARS

    def render(self, level: int | None) -> list[Segment]:
        if self.lines:
            cap = MAX_CHARS if level is None else min(MAX_CHARS, level * self.weight)
            return cut(self.text, cap, HEAD_LINES, TAIL_LINES)
        return [(self.text, CONTENT)] if level is None else cut(self.text, level * self.weight)


def _out(text: str) -> _Field:
    return _Field(escape(text), 1, True)


def _said(text: str) -> _Field:
    return _Field(escape(text), VERBATIM_WEIGHT, False)


def _parts(ev, call_index: dict[str, int]) -> list[str | _Field]:
    """An event as labels (harness text) and content fields."""
    if ev.kind == "message":
        if ev.role == "assistant":
            return [f"[E{ev.id}] assistant:\n", _said(ev.content)]
        return [f"[E{ev.id}] {ev.role} message from the harness (context, not the agent's words):\n",
                _out(SKILL_BLOCK.sub("", ev.content))]
    if ev.kind == "tool_call":
        args = ev.arguments
        if set(args) == {"command"} and isinstance(args["command"], str):
            return [f"[E{ev.id}] tool_call {ev.name}:\n", _said(args["command"])]
        parts: list[str | _Field] = [f"[E{ev.id}] tool_call {ev.name}:"]
        for k, v in args.items():
            text = v if isinstance(v, str) else json.dumps(v)
            parts += [f"\n{k}: ", _said(text) if k in ("path", "command") else _out(text)]
        return parts
    if ev.kind == "tool_result":
        of = f" of E{call_index[ev.call_id]}" if ev.call_id in call_index else ""
        facts = ([f"exit {ev.exit_code}"] + ["timed out"] * ev.timed_out
                 + ["output capped by the harness"] * ev.truncated)
        parts = [f"[E{ev.id}] tool_result{of} ({', '.join(facts)}):"]
        if ev.error:
            parts += ["\nerror: ", _out(ev.error)]
        for name in ("stdout", "stderr"):
            text = getattr(ev, name)
            if text.strip():
                parts += [f"\n{name}:\n", _out(text)]
        return parts
    if ev.kind == "file_edit":
        by = f" by E{call_index[ev.call_id]}" if ev.call_id in call_index else ""
        return [f"[E{ev.id}] file_edit {ev.path} (the harness's diff of the file as changed{by}):\n", _out(ev.diff)]
    if ev.kind == "report":
        r = ev.report
        return [f"[E{ev.id}] final report:\nroot_cause: ", _said(r.root_cause), "\nlocation: ", _said(r.location),
                "\nfix: ", _said(r.fix), "\nevidence: ", _said(r.evidence)]
    if ev.kind == "error":
        return [f"[E{ev.id}] harness note ({ev.error_type}):\n", _out(ev.message)]
    raise ValueError(f"unknown event kind {ev.kind}")


@dataclass
class View:
    """The numbered transcript the judge reads, and what each event looked like in it."""

    text: str
    segments: dict[int, list[Segment]] = field(default_factory=dict)
    budget_chars: int | None = None
    level: int | None = None  # the allowance per output field the budget left (None: not needed)
    cut_chars: int = 0  # content characters left out (elided), all limits together

    @property
    def over_budget(self) -> bool:
        return self.budget_chars is not None and len(self.text) > self.budget_chars


def _render(events_parts, level: int | None) -> tuple[str, dict[int, list[Segment]]]:
    blocks, segments = [], {}
    for ev_id, parts in events_parts:
        segs: list[Segment] = []
        for p in parts:
            segs += [(p, LABEL)] if isinstance(p, str) else p.render(level)
        segments[ev_id] = segs
        blocks.append("".join(t for t, _ in segs))
    return "\n\n".join(blocks), segments


def _rendered_len(events_parts, level: int | None) -> int:
    n = 2 * max(0, len(events_parts) - 1)
    for _, parts in events_parts:
        for p in parts:
            n += len(p) if isinstance(p, str) else sum(len(t) for t, _ in p.render(level))
    return n


def compact(events, budget_chars: int | None = None) -> View:
    """The view of ``events``; with ``budget_chars`` the highest allowance whose view fits is used
    (never below MIN_LEVEL, so a transcript of thousands of events can still exceed it: see ``over_budget``)."""
    hidden = submit_calls_with_report(events)
    call_index = {ev.call_id: ev.id for ev in events if ev.kind == "tool_call"}
    parts = [(ev.id, _parts(ev, call_index)) for ev in events if visible(ev, hidden)]
    level = None
    if budget_chars is not None and _rendered_len(parts, None) > budget_chars:
        longest = max((len(p.text) for _, ps in parts for p in ps if isinstance(p, _Field)), default=0)
        lo, hi = MIN_LEVEL, max(MIN_LEVEL, longest)
        while lo < hi:  # the largest level whose rendering fits
            mid = (lo + hi + 1) // 2
            if _rendered_len(parts, mid) <= budget_chars:
                lo = mid
            else:
                hi = mid - 1
        level = lo
    text, segments = _render(parts, level)
    full = sum(len(p.text) for _, ps in parts for p in ps if isinstance(p, _Field))
    shown = sum(len(t) for segs in segments.values() for t, kind in segs if kind == CONTENT)
    return View(text=text, segments=segments, budget_chars=budget_chars, level=level, cut_chars=full - shown)


def agent_acted(events) -> bool:
    """False when the agent produced nothing at all (no message, call, edit or report)."""
    return any((ev.kind == "message" and ev.role == "assistant") or ev.kind in {"tool_call", "file_edit", "report"}
               for ev in events)

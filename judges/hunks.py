"""The changed hunks ``unsupported_change`` asks the judge about, computed from the file-edit events.

Each ``file_edit`` event holds the diff of one tool call's changes; every hunk of it becomes a
``Hunk`` with an id (``H1``, ``H2``, ...), the event that recorded it, the tool call that made it,
and where it sits relative to the key's locations. Which hunks survive to the final files and
which lie inside the key's locations is computed here, never asked: a hunk whose added lines
later edits remove again at the same place (and whose removed lines they restore) was reverted;
a hunk that overlaps a key span is the fix itself. Only the surviving hunks outside the key are
put to the judge.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter

from pydantic import BaseModel, Field

from harness.core.diffs import is_marker, parse_diff
from judges.compaction import escape
from judges.evidence import edit_calls

LOCATION = re.compile(r"(?P<file>[\w./\\-]+\.\w+)\s*:\s*(?P<start>\d+)(?:\s*[-–]\s*(?P<end>\d+))?")
MAX_HUNKS = 40  # more surviving hunks outside the key than this cannot be labelled one by one: fail
MAX_HUNK_LINES = 24  # lines of one hunk shown in its listing (the full diff is in the transcript)
MAX_LISTING_CHARS = 16_000  # the whole listing (~4,000 tokens): hunks are shown shorter until it fits
MAX_LINE_CHARS = 200


class Hunk(BaseModel):
    id: str
    event_id: int = Field(description="the file_edit event that recorded the hunk")
    made_by: int | None = Field(default=None, description="the tool_call that made the change")
    path: str
    old_start: int = 0
    old_end: int = 0
    text: str
    in_key: bool = False
    where: str = ""
    reverted_by: int | None = None
    cut: bool = Field(default=False, description="the harness recorded only part of this hunk (or of the "
                                                  "hunks after it): nobody can see all it changed")

    @property
    def to_label(self) -> bool:
        return not self.in_key and self.reverted_by is None

    def listing(self, max_lines: int = MAX_HUNK_LINES) -> str:
        """The hunk's header and up to ``max_lines`` lines. When it is longer, the changed code lines are
        shown before context, comments and blank lines (collapsed into counts), so padding an edit with
        comments does not push a real change out of the judge's view."""
        lines = [x if len(x) <= MAX_LINE_CHARS else x[:MAX_LINE_CHARS] + " [...]" for x in self.text.splitlines()]
        if len(lines) > max_lines:
            code = [i for i, x in enumerate(lines) if _is_code_change(x)]
            keep = set(code[:max_lines])
            keep |= set([i for i in range(len(lines)) if i not in keep][:max_lines - len(keep)])
            shown, skipped = [], 0
            for i, x in enumerate(lines):
                if i in keep:
                    if skipped:
                        shown.append(f"[... {skipped} lines (context, comments, blank or beyond the limit) ...]")
                        skipped = 0
                    shown.append(x)
                else:
                    skipped += 1
            if skipped:
                shown.append(f"[... {skipped} lines (context, comments, blank or beyond the limit) ...]")
            hidden = len(code) - len(code[:max_lines])
            if hidden:
                shown.append(f"[... {hidden} changed code lines of this hunk not shown; see E{self.event_id} ...]")
            lines = shown
        body = escape("\n".join(lines))  # the agent's text: nothing in it may pass for structure
        cut = " [cut by the harness: not all of it was recorded]" if self.cut else ""
        return f"{self.id}: {self.path}, from E{self.event_id}; {self.where}{cut}\n{body}"


def _is_code_change(line: str) -> bool:
    """A changed line that does something: not context, not blank, not a comment."""
    body = line[1:].strip()
    return line[:1] in ("+", "-") and bool(body) and not body.startswith(("#", "//"))


def key_spans(locations: list[str]) -> list[tuple[str, int, int]]:
    out = []
    for text in locations:
        m = LOCATION.search(text)
        if m:
            start = int(m.group("start"))
            out.append((m.group("file").replace("\\", "/"), start, int(m.group("end") or start)))
    return out


def _same(a: str, b: str) -> bool:
    a, b = posixpath.normpath(a).removeprefix("./"), posixpath.normpath(b).removeprefix("./")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _split(diff: str) -> list[tuple[int, int, list[str], bool]]:
    """(old start line, new start line, lines, cut) for each hunk of one file's unified diff; a diff without
    hunks (a binary or large file) is one pseudo-hunk holding its text. ``cut``: the harness left out
    changed lines of the hunk (``harness.core.diffs.shrink_diff``'s markers); hunks it left out entirely
    become one pseudo-hunk that is cut."""
    hunks: list[tuple[int, int, list[str], bool]] = []

    def mark(marker: str) -> None:
        if "cut by the harness" not in marker:
            return
        if "more hunks" in marker or not hunks:
            hunks.append((0, 0, [marker], True))
        else:
            hunks[-1] = (*hunks[-1][:3], True)

    for file in parse_diff(diff):
        for marker in file.markers:
            mark(marker)
        for hunk in file.hunks:
            if not hunk.header:  # lines with no '@@' before them belong to the hunk before (if any)
                if hunks:
                    hunks[-1][2].extend(raw for raw in hunk.lines if raw and not is_marker(raw))
                continue
            hunks.append((hunk.old_start, hunk.new_start, [], False))
            for raw in hunk.lines:
                if is_marker(raw):
                    mark(raw)
                elif raw:
                    hunks[-1][2].append(raw)
    if not hunks and diff.strip():
        hunks.append((0, 0, diff.strip().splitlines(), False))
    return hunks


def _changed_span(start: int, lines: list[str], side: str = "-") -> tuple[int, int]:
    """First and last line the hunk changes, in the file before the edit (``side`` '-') or after it ('+');
    lines only on the other side count as a point (an insertion: the line after it)."""
    other = "+" if side == "-" else "-"
    pos, first, last = start, None, None
    for raw in lines:
        if raw.startswith(" "):
            pos += 1
        elif raw.startswith(side):
            first = pos if first is None else first
            last = pos
            pos += 1
        elif raw.startswith(other):
            first = pos if first is None else first
            last = max(last or pos, pos)
    return (first or start, last or start)


def _where(path: str, first: int, last: int, spans) -> tuple[bool, str]:
    same_file = [(f, s, e) for f, s, e in spans if _same(path, f)]
    for f, s, e in same_file:
        if first <= e and s <= last:
            return True, f"inside the key's location {f}:{s}-{e}"
    if same_file:
        f, s, e = min(same_file, key=lambda x: min(abs(first - x[2]), abs(x[1] - last)))
        side = f"{first - e} lines after" if first > e else f"{s - last} lines before"
        return False, f"outside the key: lines {first}-{last}, {side} the key's location {f}:{s}-{e}"
    return False, "outside the key: a file the key's locations do not name"


def _lines(hunk_lines: list[str], sign: str) -> Counter:
    return Counter(raw[1:].strip() for raw in hunk_lines if raw.startswith(sign) and raw[1:].strip())


def list_hunks(events, locations: list[str]) -> list[Hunk]:
    """Every hunk of every file_edit event, in order, with its place relative to the key and whether a
    later edit of the same file reverted it. Line numbers are those of the file as it was at that edit."""
    spans = key_spans(locations)
    made_by = edit_calls(events)
    raw: list[tuple[object, int, int, list[str]]] = []
    cut: list[bool] = []
    for ev in events:
        if ev.kind == "file_edit":
            split = _split(ev.diff)
            raw += [(ev, start, new_start, lines) for start, new_start, lines, _ in split]
            cut += [was_cut for *_, was_cut in split]
    out = []
    for n, (ev, start, _, lines) in enumerate(raw, start=1):
        first, last = _changed_span(start, lines)
        in_key, where = _where(ev.path, first, last, spans) if start else (False, "outside the key: " + (
            "a file the key's locations do not name" if not any(_same(ev.path, f) for f, _, _ in spans)
            else "a whole-file change"))
        out.append(Hunk(id=f"H{n}", event_id=ev.id, made_by=made_by.get(ev.id), path=ev.path, old_start=first,
                        old_end=last, text="\n".join(lines), in_key=in_key and not cut[n - 1], where=where,
                        cut=cut[n - 1]))
    for i, j in _reverts(raw):
        out[i].reverted_by = raw[j][0].id
        lines, lines2 = raw[i][3], raw[j][3]
        if _lines(lines2, "+") == _lines(lines, "-") and _lines(lines2, "-") == _lines(lines, "+"):
            out[j].reverted_by = raw[j][0].id  # a pure undo: it restores the file, nothing of it survives
    return out


def _reverts(raw) -> list[tuple[int, int]]:
    """(i, j): hunk i is undone once hunk j has run. Its lines are followed through the later edits of its file
    (shifted by the hunks above them); only hunks that touch those lines count, and they must remove every
    line it added and restore every line it removed."""
    found = []
    for i, (ev, _, new_start, lines) in enumerate(raw):
        added, removed = _lines(lines, "+"), _lines(lines, "-")
        if not new_start or (not added and not removed):
            continue
        lo, hi = _changed_span(new_start, lines, "+")
        later_removed, later_added = Counter(), Counter()
        k = i + 1
        while k < len(raw):
            event = raw[k][0]
            group = []  # the hunks of one edit: all in the coordinates of the file before that edit
            while k < len(raw) and raw[k][0] is event:
                group.append(k)
                k += 1
            if not _same(event.path, ev.path):
                continue
            shift, touched = 0, None
            for j in group:
                _, start, _, lines2 = raw[j]
                first, last = _changed_span(start, lines2)
                if last < lo - 1:
                    shift += sum(x.startswith("+") for x in lines2) - sum(x.startswith("-") for x in lines2)
                elif first <= hi + 1:
                    later_removed += _lines(lines2, "-")
                    later_added += _lines(lines2, "+")
                    touched = j
            lo, hi = lo + shift, hi + shift
            if touched is not None and not (added - later_removed) and not (removed - later_added):
                found.append((i, touched))
                break
    return found


def render_hunks(hunks: list[Hunk]) -> str:
    """The listing shown to the judge: only the hunks it labels."""
    listed = [h for h in hunks if h.to_label]
    if not listed:
        return "(none: every change is inside the key's locations or was reverted)"
    for max_lines in (MAX_HUNK_LINES, 12, 6, 2, 0):  # at 0, the header and where to read it
        text = "\n\n".join(h.listing(max_lines) for h in listed[:MAX_HUNKS])
        if len(text) <= MAX_LISTING_CHARS:
            break
    return text

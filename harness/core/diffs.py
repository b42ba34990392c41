"""Unified diffs as text: the parts every layer shares (the harness records diffs, the judges read them).

``shrink_diff`` shortens a diff for a ``file_edit`` event and marks what it cut with ``CUT_MARK`` lines, which
``judges.hunks`` reads back.
"""

from __future__ import annotations

EDIT_DIFF_CAP = 64 * 1024  # one file_edit event's diff, head and tail kept
CUT_MARK = "[... "  # starts every line the harness puts in a shrunk diff; never a diff line of its own
MAX_KEPT_HUNKS = 400  # hunk headers kept in one shrunk diff; more are counted in a marker


def _is_code(line: str) -> bool:
    body = line[1:].strip()
    return bool(body) and not body.startswith(("#", "//"))


def shrink_diff(diff: str, cap: int = EDIT_DIFF_CAP) -> str:
    """A diff over ``cap`` shortened hunk by hunk, never by dropping hunks from the middle: context lines
    go first, then each hunk keeps its header and as many changed lines as fit, code before
    comments and blank lines, with a marker saying how
    many it lost (``judges.hunks`` reads the markers: a hunk it cannot see whole is not labelled as if
    it could). An agent that pads an edit with hundreds of lines cannot hide a second change in it."""
    head, hunks = [], []
    for line in diff.splitlines(keepends=True):
        if line.startswith("@@"):
            hunks.append([line])
        elif hunks:
            hunks[-1].append(line)
        else:
            head.append(line)
    extra = len(hunks) - MAX_KEPT_HUNKS
    hunks = hunks[:MAX_KEPT_HUNKS]
    changed = [[ln for ln in h[1:] if ln[:1] in "+-\\"] for h in hunks]
    budget = max(8, (cap - sum(map(len, head)) - sum(len(h[0]) for h in hunks)) // max(1, len(hunks)))
    out = list(head)
    for h, lines in zip(hunks, changed):
        out.append(h[0])
        order = sorted(range(len(lines)), key=lambda i: (not _is_code(lines[i]), i))  # code lines first
        keep, size = set(), 0
        for i in order:
            if size + len(lines[i]) > budget:
                break
            keep.add(i)
            size += len(lines[i])
        kept = [ln if ln.endswith("\n") else ln + "\n" for i, ln in enumerate(lines) if i in keep]
        out += kept
        dropped_context = len(h) - 1 - len(lines)
        if len(kept) < len(lines):
            out.append(f"{CUT_MARK}{len(lines) - len(kept)} changed lines of this hunk cut by the harness ...]\n")
        elif dropped_context:
            out.append(f"{CUT_MARK}{dropped_context} context lines of this hunk left out by the harness ...]\n")
    if extra > 0:
        out.append(f"{CUT_MARK}{extra} more hunks of this diff cut by the harness ...]\n")
    return "".join(out)


def split_patch(patch: str) -> list[tuple[str, str]]:
    """Split a multi-file unified diff into (path, diff) pairs."""
    files: list[tuple[str, list[str]]] = []
    for line in patch.splitlines(keepends=True):
        if line.startswith("--- ") and (not files or any(ln.startswith("@@") for ln in files[-1][1])):
            files.append(("", [line]))
        elif line.startswith("+++ ") and files:
            name = line[4:].split("\t")[0].strip()
            files[-1] = (name[2:] if name.startswith("b/") else name, files[-1][1] + [line])
        elif files:
            files[-1][1].append(line)
    return [(name, "".join(lines)) for name, lines in files]

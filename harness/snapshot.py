"""What changed in a workspace since the last look, whoever changed it.

Edits are seen from the files, not guessed from commands: ``sed -i``, ``perl -pi``, a Python
one-liner or the agent's edit tool all show up the same way. After every tool call the
toolbox asks the watcher for the changes and records one ``file_edit`` event per changed file,
with a unified diff. The repos are small, so each look reads every file up to a size cap and
compares bytes; larger files are compared by size and modification time. The watcher also
reports the bytes the workspace holds, for the disk budget.
"""

from __future__ import annotations

import difflib
import os
import stat
from pathlib import Path

from harness.hashing import IGNORED_PARTS
from harness.workspace import printable

CONTENT_CAP = 1_000_000  # files up to this size are compared (and diffed) by content...
CONTENT_BUDGET = 32 * 1024 * 1024  # ...until this much content is held; the rest by size and mtime
EDIT_DIFF_CAP = 64 * 1024  # one file_edit event's diff, head and tail kept


def _scan(root: Path) -> dict[str, tuple]:
    """rel -> signature: ("link", target) | ("file", size, mtime_ns, mode, bytes or None)."""
    out: dict[str, tuple] = {}
    held = 0
    stack = [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for e in entries:
            if e.name in IGNORED_PARTS or e.name.endswith(".pyc"):
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            rel = printable(os.path.relpath(e.path, root).replace(os.sep, "/"))
            if stat.S_ISDIR(st.st_mode):
                stack.append(Path(e.path))
            elif stat.S_ISLNK(st.st_mode):
                try:
                    out[rel] = ("link", printable(os.readlink(e.path)))
                except OSError:
                    out[rel] = ("link", "?")
            elif stat.S_ISREG(st.st_mode):
                data = None
                if st.st_size <= CONTENT_CAP and held + st.st_size <= CONTENT_BUDGET:
                    try:
                        fd = os.open(e.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                        with os.fdopen(fd, "rb") as fh:
                            data = fh.read(CONTENT_CAP + 1)
                    except OSError:
                        data = None
                    held += len(data or b"")
                out[rel] = ("file", st.st_size, st.st_mode & 0o777, data if data is not None else st.st_mtime_ns)
            else:
                out[rel] = ("special", stat.S_IFMT(st.st_mode))
    return out


def _lines(sig: tuple | None) -> list[str] | None:
    if sig is None:
        return []
    if sig[0] == "link":
        return [f"-> {sig[1]}\n"]
    if sig[0] == "file" and isinstance(sig[3], bytes):
        try:
            return sig[3].decode("utf-8").splitlines(keepends=True)
        except UnicodeDecodeError:
            return None
    return None


def file_diff(rel: str, old: tuple | None, new: tuple | None) -> str:
    a, b = _lines(old), _lines(new)
    if a is None or b is None:
        what = "created" if old is None else "deleted" if new is None else "changed"
        return f"Binary, large or special file {rel} {what}\n"
    diff = "".join(difflib.unified_diff(a, b, f"a/{rel}" if old else "/dev/null", f"b/{rel}" if new else "/dev/null"))
    return diff if len(diff) <= EDIT_DIFF_CAP else shrink_diff(diff)


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


class WorkspaceWatcher:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.state = _scan(self.root)

    def changes(self) -> list[tuple[str, str]]:
        """(path, diff) for every file created, changed or deleted since the last call."""
        new = _scan(self.root)
        out = [(rel, file_diff(rel, self.state.get(rel), new.get(rel)))
               for rel in sorted(self.state.keys() | new.keys()) if self.state.get(rel) != new.get(rel)]
        self.state = new
        return out


def tree_bytes(*roots: Path) -> int:
    """Bytes held by regular files under ``roots`` (links not followed)."""
    total = 0
    for root in roots:
        for dirpath, _, filenames in os.walk(root):
            for name in filenames:
                try:
                    st = os.lstat(os.path.join(dirpath, name))
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    total += st.st_size
    return total

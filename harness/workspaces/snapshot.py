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

from harness.core.diffs import CUT_MARK, EDIT_DIFF_CAP, shrink_diff  # noqa: F401 (CUT_MARK: re-exported)
from harness.core.hashing import IGNORED_PARTS
from harness.workspaces.workspace import printable

CONTENT_CAP = 1_000_000  # files up to this size are compared (and diffed) by content...
CONTENT_BUDGET = 32 * 1024 * 1024  # ...until this much content is held; the rest by size and mtime


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

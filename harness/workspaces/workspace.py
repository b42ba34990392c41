"""Fresh, isolated copies of a case for an agent to work in, and diffs of what it changed.

The agent controls what is in its workspace, so nothing here follows a link or opens anything
but a regular file: links are kept as links when they stay inside the tree and skipped when
they point out of it; FIFOs, sockets and devices are skipped; total size is capped. What was
skipped is returned, so a grader can record it. Each workspace lives in its own folder as
``repo/`` beside ``scratch/`` (the private /tmp and $HOME of its commands).
"""

from __future__ import annotations

import difflib
import filecmp
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from harness.core.errors import InfraError
from harness.core.hashing import IGNORED_PARTS
from harness.models import CopyReport, SkippedEntry

WORKSPACE_PREFIX = "mldb-ws-"
COPY_CAP_BYTES = 256 * 1024 * 1024
DIFF_CAP_BYTES = 2 * 1024 * 1024
DIFF_FILE_CAP_BYTES = 1_000_000


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "char device"),
                       (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "special file"


def printable(rel: str) -> str:
    """A path as text that survives JSON: undecodable bytes of a file name become U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _link_stays_inside(root: Path, link: Path, target: str) -> bool:
    """Whether following ``link`` stays in ``root``, resolving every link on the way (a link to
    ``.`` followed by ``..`` steps is how a lexical check gets fooled)."""
    if os.path.isabs(target):
        return False
    resolved = os.path.realpath(os.path.join(os.path.dirname(link), target))
    real_root = os.path.realpath(root)
    return resolved == real_root or resolved.startswith(real_root + os.sep)


def _copy_regular(src: Path, dst: Path) -> int:
    """Copy one regular file without following links or blocking on a swapped-in FIFO."""
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fin:
        st = os.fstat(fin.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{src} is no longer a regular file")
        with open(dst, "wb") as fout:
            shutil.copyfileobj(fin, fout, 1 << 20)
    os.chmod(dst, stat.S_IMODE(st.st_mode) | stat.S_IRUSR | stat.S_IWUSR)
    return st.st_size


def copy_tree_safely(src: Path, dst: Path, max_bytes: int = COPY_CAP_BYTES) -> CopyReport:
    """Copy ``src`` to ``dst`` (created) the safe way described in the module docstring."""
    root = Path(os.path.abspath(src))
    report = CopyReport()
    dst.mkdir(parents=True)
    stack = [(root, dst)]
    while stack:
        here, there = stack.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError as exc:
            report.skipped.append(SkippedEntry(path=printable(str(here.relative_to(root))), kind="directory",
                                               reason=f"unreadable: {exc.strerror or exc}"))
            continue
        for entry in entries:
            if entry.name in IGNORED_PARTS or entry.name.endswith(".pyc"):
                continue
            path, rel = Path(entry.path), printable(Path(entry.path).relative_to(root).as_posix())
            try:
                _copy_entry(root, entry, path, rel, there, report, stack, max_bytes)
            except OSError as exc:  # a name too long, a file that vanished: recorded, never fatal
                report.skipped.append(SkippedEntry(path=rel, kind="entry", reason=f"not copied: {exc.strerror or exc}"))
    return report


def _copy_entry(root, entry, path, rel, there, report, stack, max_bytes) -> None:
    st = entry.stat(follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
        if _link_stays_inside(root, path, target):
            os.symlink(target, there / entry.name)
        else:
            report.skipped.append(SkippedEntry(path=rel, kind="symlink",
                                               reason=f"points out of the workspace ({printable(target)})"))
    elif stat.S_ISDIR(st.st_mode):
        (there / entry.name).mkdir()
        stack.append((path, there / entry.name))
    elif stat.S_ISREG(st.st_mode):
        if report.bytes_copied + st.st_size > max_bytes:
            report.skipped.append(SkippedEntry(path=rel, kind="file",
                                               reason=f"copy cap of {max_bytes} bytes reached"))
            return
        try:
            report.bytes_copied += _copy_regular(path, there / entry.name)
        except OSError as exc:
            report.skipped.append(SkippedEntry(path=rel, kind="file", reason=f"unreadable: {exc}"))
    else:
        report.skipped.append(SkippedEntry(path=rel, kind=_kind(st.st_mode), reason="not a regular file"))


def copy_workspace(src: Path, parent: Path | None = None, max_bytes: int = COPY_CAP_BYTES) -> tuple[Path, CopyReport]:
    """A fresh copy of ``src`` as ``<new folder>/repo``; returns it with what was skipped."""
    base = Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX, dir=parent))
    ws = base / "repo"
    try:
        report = copy_tree_safely(src, ws, max_bytes)
    except OSError as exc:
        shutil.rmtree(base, ignore_errors=True)
        raise InfraError(f"could not copy {src}: {exc}") from exc
    return ws, report


def create_workspace(case_dir: Path, parent: Path | None = None) -> Path:
    """Copy a case into a new temp folder outside the repository (no .git, nothing from answers/)."""
    return copy_workspace(case_dir, parent)[0]


def remove_workspace(ws: Path) -> None:
    base = ws.parent if ws.parent.name.startswith(WORKSPACE_PREFIX) else ws
    shutil.rmtree(base, ignore_errors=True)


def _entries(folder: Path) -> dict[str, tuple[str, os.stat_result]]:
    """rel path -> ("file" | "link", lstat) for regular files and links, never following either."""
    out, stack = {}, [Path(folder)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue  # a folder we cannot list (name too long, vanished) has no entries for the diff
        for entry in entries:
            if entry.name in IGNORED_PARTS or entry.name.endswith(".pyc"):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            rel = Path(entry.path).relative_to(folder).as_posix()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", st)
            elif stat.S_ISDIR(st.st_mode):
                stack.append(Path(entry.path))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ("file", st)
    return out


def _content(folder: Path, rel: str, entry) -> tuple[list[str] | None, str]:
    """(lines or None when binary/too big, git mode) of a file or link, read without following links."""
    kind, st = entry
    path = folder / rel
    if kind == "link":
        try:
            return [printable(os.readlink(path))], "120000"
        except OSError:
            return None, "120000"
    mode = "100755" if st.st_mode & stat.S_IXUSR else "100644"
    if st.st_size > DIFF_FILE_CAP_BYTES:
        return None, mode
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as fh:
            return fh.read(DIFF_FILE_CAP_BYTES + 1).decode("utf-8").splitlines(keepends=True), mode
    except (OSError, UnicodeDecodeError):
        return None, mode


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        return filecmp.cmp(a, b, shallow=False)
    except OSError:
        return False


def diff_trees(before: Path, after: Path, max_bytes: int = DIFF_CAP_BYTES) -> str:
    """Unified diff (``a/``, ``b/`` prefixes, ``git apply`` compatible) from ``before`` to ``after``.

    Only regular files and links count; the whole diff is capped at ``max_bytes`` (the cut is
    marked, and a cut diff no longer applies)."""
    old_entries, new_entries = _entries(before), _entries(after)
    chunks: list[str] = []
    size = 0
    for rel in sorted(old_entries.keys() | new_entries.keys()):
        a, b = old_entries.get(rel), new_entries.get(rel)
        old, old_mode = _content(before, rel, a) if a else ([], None)
        new, new_mode = _content(after, rel, b) if b else ([], None)
        if a and b and old is not None and old == new and old_mode == new_mode:
            continue
        if printable(rel) != rel:
            chunk = f"File with an undecodable name {printable(rel)} differs\n"
        elif old is None or new is None:
            if a and b and a[0] == b[0] == "file" and _same_bytes(before / rel, after / rel):
                continue
            chunk = f"Binary or large file {rel} differs\n"
        else:
            for lines in (old, new):
                if lines and not lines[-1].endswith("\n"):
                    lines[-1] += "\n\\ No newline at end of file\n"
            parts = [f"diff --git a/{rel} b/{rel}\n"]
            if not a:
                parts.append(f"new file mode {new_mode}\n")
            elif not b:
                parts.append(f"deleted file mode {old_mode}\n")
            elif old_mode != new_mode:
                parts.append(f"old mode {old_mode}\nnew mode {new_mode}\n")
            parts.extend(difflib.unified_diff(old, new, f"a/{rel}" if a else "/dev/null",
                                              f"b/{rel}" if b else "/dev/null"))
            chunk = "".join(parts)
        if size + len(chunk) > max_bytes:
            chunks.append(f"[... diff cut at {max_bytes} bytes by the harness: {rel} and later files not shown ...]\n")
            break
        chunks.append(chunk)
        size += len(chunk)
    return "".join(chunks)


def apply_patch(ws: Path, patch: str | Path) -> None:
    """Apply a unified diff to ``ws`` with ``git apply`` (works outside any repository)."""
    text = Path(patch).read_text(encoding="utf-8") if isinstance(patch, Path) else patch
    if not text.strip():
        return
    proc = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        cwd=ws, input=text, capture_output=True, text=True, timeout=60,
    )
    if proc.returncode != 0:
        where = f" ({patch})" if isinstance(patch, Path) else ""
        raise InfraError(f"patch does not apply{where}: {proc.stderr.strip()}")

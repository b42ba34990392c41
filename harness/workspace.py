"""Fresh, isolated copies of a case for an agent to work in, and diffs of what it changed."""

from __future__ import annotations

import difflib
import shutil
import subprocess
import tempfile
from pathlib import Path

from harness.errors import InfraError
from harness.hashing import IGNORED_PARTS, iter_files

WORKSPACE_PREFIX = "mldb-ws-"
_IGNORE = shutil.ignore_patterns(*IGNORED_PARTS, "*.pyc")


def create_workspace(case_dir: Path, parent: Path | None = None) -> Path:
    """Copy ``case_dir`` into a new temp folder outside the repository (no .git, nothing from answers/)."""
    base = Path(tempfile.mkdtemp(prefix=WORKSPACE_PREFIX, dir=parent))
    ws = base / "repo"
    shutil.copytree(case_dir, ws, ignore=_IGNORE, symlinks=False)
    return ws


def remove_workspace(ws: Path) -> None:
    base = ws.parent if ws.parent.name.startswith(WORKSPACE_PREFIX) else ws
    shutil.rmtree(base, ignore_errors=True)


def copy_tree(src: Path, parent: Path | None = None) -> Path:
    """A fresh copy of a (final) workspace, so graders never run inside the agent's own folder."""
    return create_workspace(src, parent)


def _read_lines(path: Path) -> list[str] | None:
    try:
        return path.read_text(encoding="utf-8").splitlines(keepends=True)
    except (UnicodeDecodeError, OSError):
        return None


def diff_trees(before: Path, after: Path, max_file_bytes: int = 1_000_000) -> str:
    """Unified diff (``a/``, ``b/`` prefixes, ``git apply`` compatible) from ``before`` to ``after``."""
    rel_before = {p.relative_to(before).as_posix() for p in iter_files(before)}
    rel_after = {p.relative_to(after).as_posix() for p in iter_files(after)}
    chunks: list[str] = []
    for rel in sorted(rel_before | rel_after):
        a, b = before / rel, after / rel
        if a.is_file() and b.is_file() and a.read_bytes() == b.read_bytes():
            continue
        too_big = any(p.is_file() and p.stat().st_size > max_file_bytes for p in (a, b))
        old = [] if not a.is_file() else _read_lines(a)
        new = [] if not b.is_file() else _read_lines(b)
        if too_big or old is None or new is None:
            chunks.append(f"Binary or large file {rel} differs\n")
            continue
        for lines in (old, new):
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n\\ No newline at end of file\n"
        from_name = f"a/{rel}" if a.is_file() else "/dev/null"
        to_name = f"b/{rel}" if b.is_file() else "/dev/null"
        chunks.append(f"diff --git a/{rel} b/{rel}\n")
        if not a.is_file():
            chunks.append("new file mode 100644\n")
        if not b.is_file():
            chunks.append("deleted file mode 100644\n")
        chunks.extend(difflib.unified_diff(old, new, from_name, to_name))
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

"""Content hashes, so a run can say exactly which cases, answers and prompts it used."""

from __future__ import annotations

import hashlib
from pathlib import Path

IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".git"}


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    return sha256_bytes(text.encode("utf-8"))


def sha256_file(path: Path) -> str:
    return sha256_bytes(Path(path).read_bytes())


def iter_files(folder: Path):
    """Regular files under ``folder`` in a stable order, skipping caches; links are never followed
    (a link to /dev/zero or a FIFO in an agent's tree must not hang a hash)."""
    for p in sorted(Path(folder).rglob("*")):
        if p.is_symlink() or not p.is_file():
            continue
        if not (IGNORED_PARTS & set(p.relative_to(folder).parts)) and p.suffix != ".pyc":
            yield p


def sha256_tree(folder: Path) -> str:
    h = hashlib.sha256()
    for p in iter_files(folder):
        h.update(p.relative_to(folder).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()

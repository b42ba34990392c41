"""Verdicts shared by the checks of one ``validate`` call: a tree verified once is not verified again.

Validation verifies some trees twice: the reference agent's finished workspace is usually the gold
patch's tree, the null agent's is the unchanged case (also checked as ``verifier_fails_on_broken``),
and a corpus fix can be the gold patch or a named over-fix. Within one validate call the case, its
answers and the harness do not change, so a verdict is keyed by the case, the content of the tree
(every path, file byte and link target, bytecode caches aside), the sandbox, the kernel level and
the seeds asked for, and kept in a folder that lives as long as the call.

Only ``validate`` turns it on (``enabled``); grading a run never reuses a verdict (the reference and
null agents' samples graded inside ``validate`` do, after their guard has run). Only ``pass`` and
``fail`` are kept (an ``error`` may pass on a second try). A request for a full verification is
answered by a kept full verification, or by a kept verdict-only ``fail``: a first seed that failed
is a failed full verification too (``verify_tree``), and validation asks only for verdicts.
Workers of one call share the folder; a file lock per key makes the second asker wait for the first.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from pathlib import Path
from typing import Callable, Iterator

from harness.models import VerifierRun

_folder: Path | None = None


def tree_digest(folder: Path) -> str:
    """Every path under ``folder`` with its kind and content (a link by its target, never followed)."""
    h = hashlib.sha256()
    for p in sorted(Path(folder).rglob("*")):
        rel = p.relative_to(folder)
        if "__pycache__" in rel.parts or p.suffix == ".pyc":
            continue
        if p.is_symlink():
            h.update(b"L" + rel.as_posix().encode() + b"\0" + os.readlink(p).encode() + b"\0")
        elif p.is_file():
            h.update(b"F" + rel.as_posix().encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
        elif p.is_dir():
            h.update(b"D" + rel.as_posix().encode() + b"\0")
        else:
            h.update(b"O" + rel.as_posix().encode() + b"\0")
    return h.hexdigest()


@contextlib.contextmanager
def enabled(folder: Path) -> Iterator[None]:
    """Keep and reuse verdicts in ``folder`` for the duration (this process; pool workers call ``use``)."""
    previous = _folder
    use(folder)
    try:
        yield
    finally:
        use(previous)


def use(folder: Path | None) -> None:
    global _folder
    _folder = folder


def active() -> bool:
    return _folder is not None


def pristine_folder(case_id: str, sandbox) -> Path | None:
    """The folder the deciding processes of this call share for what they compute from the unchanged case
    alone (``verifylib.pristine_memo``: the case_05 pair trains the unchanged repo at each seed to bound
    the agent's training), one per case, sandbox and kernel level; None outside ``validate``. Only deciders
    (trusted code, never the agent's) get it."""
    if _folder is None:
        return None
    parts = [case_id, *_sandbox_parts(sandbox)]
    folder = _folder / "pristine" / hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _sandbox_parts(sandbox) -> list:
    """What of the sandbox changes a verdict: its kind and the CPU kernel level it runs torch under."""
    return [getattr(sandbox, "name", "?"), getattr(sandbox, "kernel", None)]


def _key(case_id: str, tree: Path, sandbox, seeds: int | None) -> str:
    parts = [case_id, tree_digest(tree), *_sandbox_parts(sandbox), seeds]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]


def _load(path: Path) -> VerifierRun | None:
    try:
        return VerifierRun.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def verdict(case_id: str, tree: Path, sandbox, seeds: int | None, verdict_only: bool,
            compute: Callable[[], VerifierRun]) -> VerifierRun:
    """The kept verdict for this tree if one answers the request, else ``compute()`` (kept if decided)."""
    if _folder is None:
        return compute()
    _folder.mkdir(parents=True, exist_ok=True)
    key = _key(case_id, tree, sandbox, seeds)
    full, early = _folder / f"{key}.full.json", _folder / f"{key}.early.json"
    with open(_folder / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = _load(full) or _load(early)
        if kept is not None and (verdict_only or not kept.early_stop or kept.status == "fail"):
            return kept
        run = compute()
        if run.status in ("pass", "fail"):
            (early if run.early_stop else full).write_text(run.model_dump_json(), encoding="utf-8")
        return run

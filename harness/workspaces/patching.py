"""A fresh copy of a case with one patch applied: what ``verify --patch`` verifies (docs/cases.md, the walk-through)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from harness.core.cases import Case
from harness.core.errors import InfraError, InputError
from harness.workspaces.workspace import apply_patch, create_workspace, remove_workspace


@contextmanager
def patched_case(case: Case, patch: Path):
    """Yield a temp copy of ``case`` with ``patch`` applied (``git apply``); removed afterwards. A patch that
    is missing, unreadable or does not apply is an InputError naming the patch file and git's reason."""
    if not patch.is_file():
        raise InputError(patch, "patch file not found")
    try:
        text = patch.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(patch, f"cannot read the patch: {exc}") from exc
    if not text.strip():
        raise InputError(patch, "the patch is empty")
    ws = create_workspace(case.case_dir)
    try:
        try:
            apply_patch(ws, text)
        except InfraError as exc:
            reason = str(exc).removeprefix("patch does not apply: ")
            raise InputError(patch, f"does not apply to a fresh copy of cases/{case.id} (paths are relative to the "
                                    f"case folder, with a/ and b/ prefixes): {reason}") from exc
        yield ws
    finally:
        remove_workspace(ws)

"""``ast.parse`` behind one process-wide lock.

CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state, so two threads parsing
at once can fail with a spurious ``SystemError: AST constructor recursion depth mismatch``
(python/cpython#106905). The runner grades samples in parallel threads, and the judges parse the agent's
files, so every parse in the harness goes through here."""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename=filename)

"""Stopping a run cleanly: a stop flag every sample checks, and every live child process, so one
signal can end them all.

Each command the harness starts registers its kill function here while it runs. On SIGINT or
SIGTERM the runner sets the flag (no new samples, no new commands) and calls ``kill_all()``:
the running commands end at once, their samples notice the flag and end ``interrupted``.
"""

from __future__ import annotations

import threading
from typing import Callable

_stop = threading.Event()
_lock = threading.Lock()
_live: dict[int, Callable[[], None]] = {}
_next = 0


class Interrupted(Exception):
    """The run is stopping (SIGINT/SIGTERM): the sample ends unrecorded, to be redone by resume."""


def request_stop() -> None:
    _stop.set()


def stop_requested() -> bool:
    return _stop.is_set()


def check() -> None:
    """Raise Interrupted when the run is stopping: called before starting anything new."""
    if _stop.is_set():
        raise Interrupted("the run is stopping")


def reset() -> None:
    """Clear the flag (a new run in the same process, e.g. tests)."""
    _stop.clear()


def register(kill: Callable[[], None]) -> int:
    """Remember a running command's kill function; returns a token for ``unregister``."""
    global _next
    with _lock:
        _next += 1
        _live[_next] = kill
        return _next


def unregister(token: int) -> None:
    with _lock:
        _live.pop(token, None)


def kill_all() -> int:
    """Kill every registered command now; returns how many there were."""
    with _lock:
        kills = list(_live.values())
    for kill in kills:
        try:
            kill()
        except Exception:  # one stubborn process must not keep the others alive
            pass
    return len(kills)


def live_count() -> int:
    with _lock:
        return len(_live)

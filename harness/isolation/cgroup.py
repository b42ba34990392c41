"""A cgroup per command, when the machine lets us make one: a cap on processes and memory, and
a list of every process the command started, however it detached.

Why: rlimits are per process. RLIMIT_NPROC never binds root (the kernel exempts uid 0), so a
fork bomb is only stopped by a cgroup's ``pids.max``; ten processes at the 4 GiB address-space
limit can still exhaust the machine, which ``memory`` limits stop; and a ``setsid``'d grandchild
escapes a process-group kill but not its cgroup. Where cgroups cannot be written (no
permission, no controller), ``Cage.create`` returns None and the caller falls back to
process-group kills; the run records which it had.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_paths() -> dict[str, str]:
    """controller -> our cgroup path, from /proc/self/cgroup (v1 lines name controllers; v2 is '0::/path')."""
    out: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for c in (controllers.split(",") if controllers else [""]):
            out[c] = path
    return out


def _controller_dir(controller: str) -> Path | None:
    """Where we may create a child cgroup for ``controller``: v1 hierarchy, else a v2 one that delegates it."""
    paths = _own_paths()
    v1 = CGROUP_ROOT / controller
    if controller in paths and v1.is_dir():
        return v1 / paths[controller].lstrip("/")
    if "" in paths and (CGROUP_ROOT / "cgroup.controllers").is_file():
        base = CGROUP_ROOT / paths[""].lstrip("/")
        try:
            if controller in (base / "cgroup.subtree_control").read_text().split():
                return base
        except OSError:
            return None
    return None


@dataclass
class Cage:
    """One command's cgroups (one per controller on v1, shared on v2)."""

    dirs: list[Path]

    @classmethod
    def create(cls, max_pids: int, max_memory: int) -> "Cage | None":
        made: list[Path] = []
        name = f"mldb-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            for controller, limit_file, value in (("pids", "pids.max", max_pids),
                                                  ("memory", "memory.limit_in_bytes", max_memory)):
                parent = _controller_dir(controller)
                if parent is None:
                    raise OSError(f"no writable {controller} cgroup")
                d = parent / name
                if d not in made:
                    d.mkdir()
                    made.append(d)
                target = d / limit_file
                if not target.exists() and controller == "memory":
                    target = d / "memory.max"  # cgroup v2 spelling
                target.write_text(str(value))
        except OSError:
            cls(made).remove()
            return None
        return cls(made)

    def join(self) -> None:
        """Move the calling process in (run in the child between fork and exec)."""
        for d in self.dirs:
            (d / "cgroup.procs").write_text(str(os.getpid()))

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            try:
                found |= {int(p) for p in (d / "cgroup.procs").read_text().split()}
            except OSError:
                pass
        return found

    def kill_all(self, wait_s: float = 5.0) -> None:
        """SIGKILL every process in the cage until none is left (a fork loop may race the first pass)."""
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        for d in reversed(self.dirs):
            for _ in range(100):
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # still emptying: the kernel frees a killed task asynchronously
                    time.sleep(0.01)

"""Where agent commands run: bubblewrap isolation when available, else a plain subprocess.

Both apply the same resource limits. Under bubblewrap the root file system is read-only,
the workspace is the only writable host path, /tmp is private, the project repository
(and with it answers/ and results/) is hidden under an empty read-only tmpfs, and the
command has no network, its own PID namespace (so nothing it starts outlives it), no
capabilities, and dies with the harness. LLM calls never run in here: only commands.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from harness.errors import ConfigError
from harness.execution import ExecResult, base_env, run_argv

GIB = 1024 ** 3
SANDBOX_MODES = ("auto", "required", "none")


@dataclass(frozen=True)
class ResourceLimits:
    """Per-command rlimits. Measured on case_01: torch + training peaks at ~0.7 GiB of virtual
    address space with one thread and fails below 768 MiB, so 4 GiB leaves room for more threads
    and bigger cases while still stopping a runaway allocation."""

    address_space: int = 4 * GIB
    file_size: int = 1 * GIB
    cpu_grace_seconds: int = 10

    def preexec(self, timeout: float):
        """A preexec_fn setting the limits in the child; CPU time is the wall timeout plus grace."""
        cpu = int(timeout) + self.cpu_grace_seconds

        def apply() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (self.address_space, self.address_space))
            resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_size, self.file_size))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return apply


def _sandbox_env(workspace: Path) -> dict[str, str]:
    return base_env({"HOME": str(workspace), "TMPDIR": "/tmp"})


class PlainSandbox:
    """No isolation (the fallback): a subprocess in the workspace with rlimits, a timeout and a
    killed process group. Recorded as ``sandbox: none`` so nobody mistakes it for isolation."""

    name = "none"

    def __init__(self, limits: ResourceLimits | None = None, reason: str = ""):
        self.limits = limits or ResourceLimits()
        self.reason = reason

    def run(self, command: str, workspace: Path, timeout: float, output_cap: int) -> ExecResult:
        return run_argv(["bash", "-c", command], workspace, timeout, command=command,
                        env=_sandbox_env(workspace), output_cap=output_cap,
                        preexec_fn=self.limits.preexec(timeout))


def _is_under(path: Path, parent: Path) -> bool:
    return path == parent or parent in path.parents


class BwrapSandbox:
    """Commands under bubblewrap. ``hide`` lists host folders the agent must not see."""

    name = "bwrap"

    def __init__(self, bwrap: str, hide: list[Path] = (), limits: ResourceLimits | None = None,
                 tmp_size: int = 2 * GIB):
        self.bwrap = bwrap
        self.hide = [Path(p).resolve() for p in hide]
        self.limits = limits or ResourceLimits()
        self.tmp_size = tmp_size

    def _interpreter_paths(self) -> list[Path]:
        """Python installs the command needs; re-exposed read-only if they sit under a hidden folder
        or under /tmp, which the sandbox replaces (e.g. CI's ``.venv`` inside a repo cloned under
        /tmp; a venv's python links to the base install)."""
        paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent}
        covered = [*self.hide, Path("/tmp")]
        return sorted(p for p in paths if any(_is_under(p, h) for h in covered))

    def argv(self, command: str, workspace: Path) -> list[str]:
        ws = str(Path(workspace).resolve())
        args = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--size", str(self.tmp_size), "--tmpfs", "/tmp"]
        hidden = [str(h) for h in self.hide if h.is_dir()]
        for h in hidden:  # an empty tmpfs over each hidden folder, read-only once the binds below are in
            args += ["--tmpfs", h]
        for p in self._interpreter_paths():
            args += ["--ro-bind", str(p), str(p)]
        args += ["--bind", ws, ws]
        for h in hidden:
            args += ["--remount-ro", h]
        args += ["--chdir", ws,
                 "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                 "--new-session", "--die-with-parent", "--cap-drop", "ALL",
                 "--", "bash", "-c", command]
        return args

    def run(self, command: str, workspace: Path, timeout: float, output_cap: int) -> ExecResult:
        return run_argv(self.argv(command, workspace), workspace, timeout, command=command,
                        env=_sandbox_env(workspace), output_cap=output_cap,
                        preexec_fn=self.limits.preexec(timeout))


def bwrap_problem(bwrap: str | None) -> str | None:
    """Why bubblewrap cannot be used here (None when it works): missing, or namespaces refused."""
    if not bwrap:
        return "bubblewrap (bwrap) is not installed"
    try:
        proc = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid",
                               "--die-with-parent", "--cap-drop", "ALL", "--", "true"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap failed to start: {exc}"
    if proc.returncode != 0:
        return f"bubblewrap cannot create a sandbox here: {proc.stderr.strip() or proc.returncode}"
    return None


def default_hidden(root: Path, out_dir: Path) -> list[Path]:
    """Folders an agent must never see: the repository (answers/ included), the results folder,
    a ``shared`` folder beside the repository (the seed benchmark and its key live there), and
    any extra paths in $ML_DEBUG_BENCH_HIDE (os.pathsep-separated)."""
    hidden = [Path(root), Path(out_dir), Path(root).resolve().parent / "shared"]
    hidden += [Path(p) for p in os.environ.get("ML_DEBUG_BENCH_HIDE", "").split(os.pathsep) if p]
    return hidden  # BwrapSandbox skips the ones that do not exist when a command runs


def get_sandbox(mode: str = "auto", hide: list[Path] = (), limits: ResourceLimits | None = None,
                bwrap: str | None = None):
    """``auto``: bubblewrap if it works, else the plain fallback; ``required``: bubblewrap or a
    ConfigError; ``none``: the plain fallback."""
    if mode not in SANDBOX_MODES:
        raise ConfigError(f"unknown sandbox mode '{mode}' (known: {', '.join(SANDBOX_MODES)})")
    if mode == "none":
        return PlainSandbox(limits, reason="--sandbox none")
    exe = bwrap if bwrap is not None else shutil.which("bwrap")
    problem = bwrap_problem(exe)
    if problem is None:
        return BwrapSandbox(exe, hide=list(hide), limits=limits)
    if mode == "required":
        raise ConfigError(f"--sandbox required, but {problem}")
    return PlainSandbox(limits, reason=problem)

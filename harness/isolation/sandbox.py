"""Where every command that runs the agent's code runs: its own commands, the case's run command
on its workspace, and the hidden verifier. Bubblewrap when it works, else a plain subprocess.

Under bubblewrap a command sees a minimal file system, not the host's with holes in it:
``/usr`` (and the ``/bin``, ``/lib*`` links into it), a short list of ``/etc`` files, the
Python installation running the harness (venv and base install, read-only), the workspace
(read-write), a private ``/tmp`` that is also its ``$HOME``, and whatever extra mounts the
caller names (the verifier's files, read-only). Nothing else of the host exists in there: no
other checkout, no results folder, no home directory, no answers. It has no network, its own
PID namespace (it cannot see or signal the harness), no capabilities, and dies with the harness.

Both modes apply the same limits: rlimits per process (address space, file size, CPU time),
a cgroup per command where the machine allows one (process count and memory for the whole
tree, and a kill that reaches detached grandchildren), the allowlisted environment of
``harness.isolation.execution.command_env``, a timeout, and a kill of everything at the end. The
fallback (``sandbox: none``) cannot hide files or block the network; the run records it.
"""

from __future__ import annotations

import copy
import resource
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import ConfigError
from harness.isolation.cgroup import Cage
from harness.isolation.execution import ExecResult, command_env, run_argv

GIB = 1024 ** 3
SANDBOX_MODES = ("auto", "required", "none")
SANDBOX_HOME = "/tmp/home"
# /etc entries commands need: dynamic linker, users, time zone, Debian's alternatives links
# (awk, editors), TLS configuration read at import by some libraries. Nothing secret.
ETC_FILES = ("alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "passwd", "group",
             "nsswitch.conf", "hosts", "os-release", "debian_version", "mime.types", "ssl", "gitconfig", "inputrc")
TOP_LEVEL_SYSTEM = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")


@dataclass(frozen=True)
class ResourceLimits:
    """Per-command limits. Measured on case_01: torch + training peaks at ~0.7 GiB of virtual
    address space with one thread and fails below 768 MiB, so 4 GiB per process leaves room
    while still stopping a runaway allocation; the cgroup caps the whole tree."""

    address_space: int = 4 * GIB
    file_size: int = 1 * GIB
    cpu_grace_seconds: int = 10
    max_pids: int = 256
    max_memory: int = 6 * GIB
    # RLIMIT_NPROC counts all of the user's processes and never binds root: only a backstop for
    # non-root machines without cgroups, so it is set well above what a real case needs.
    nproc: int = 4096

    def preexec(self, timeout: float):
        """A preexec_fn setting the rlimits in the child; CPU time is the wall timeout plus grace."""
        cpu = int(timeout) + self.cpu_grace_seconds

        def apply() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (self.address_space, self.address_space))
            resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_size, self.file_size))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            resource.setrlimit(resource.RLIMIT_NPROC, (self.nproc, self.nproc))

        return apply


@dataclass(frozen=True)
class Mount:
    """An extra host folder or file a command needs, at the same path inside."""

    path: Path
    writable: bool = False


def scratch_for(workspace: Path, scratch: Path | None = None) -> Path:
    """The command's private /tmp and $HOME (``scratch/home``), kept for the whole sample:
    by default ``scratch`` beside the workspace, inside its own temp folder."""
    scratch = Path(scratch) if scratch is not None else Path(workspace).parent / "scratch"
    (scratch / "home").mkdir(parents=True, exist_ok=True)
    return scratch


class _Base:
    name = "?"
    pdeath_signal = signal.SIGKILL  # what the wrapped process gets if the harness dies
    kernel: str | None = None  # torch's SIMD level for every command (None: the harness's own environment)

    def __init__(self, limits: ResourceLimits | None = None):
        self.limits = limits or ResourceLimits()
        probe = Cage.create(1, 1 << 20)
        self.cgroups = probe is not None
        if probe is not None:
            probe.remove()

    def with_kernel(self, level: str | None) -> "_Base":
        """A copy of this sandbox whose commands run under torch's ``level`` kernels (``ATEN_CPU_CAPABILITY``),
        set on the object rather than in ``os.environ`` so parallel validation jobs cannot leak levels into
        each other. The caller checks the level against the CPU (``harness.isolation.kernels.check_level``)."""
        box = copy.copy(self)
        box.kernel = level
        return box

    def kernel_env(self) -> dict[str, str]:
        return {"ATEN_CPU_CAPABILITY": self.kernel} if self.kernel else {}

    def run(self, command: str, workspace: Path, timeout: float, output_cap: int) -> ExecResult:
        """An agent's shell command, in its workspace (the one writable host folder)."""
        return self.run_argv(["bash", "-c", command], workspace, timeout, output_cap,
                             mounts=(Mount(workspace, writable=True),), command=command)

    def run_argv(self, argv: list[str], cwd: Path, timeout: float, output_cap: int, mounts: tuple[Mount, ...] = (),
                 command: str | None = None, scratch: Path | None = None) -> ExecResult:
        """``argv`` with ``cwd`` as working folder; under bubblewrap only ``mounts`` (and the system
        view) exist, so ``cwd`` must be one of them or inside one."""
        cwd = Path(cwd).resolve()
        scratch = scratch_for(cwd, scratch)
        cage = Cage.create(self.limits.max_pids, self.limits.max_memory) if self.cgroups else None
        try:
            return run_argv(self.wrap(argv, cwd, mounts, scratch), cwd, timeout, command=command or " ".join(argv),
                            env=self.env(scratch), output_cap=output_cap, preexec_fn=self.limits.preexec(timeout),
                            cage=cage, pdeath_signal=self.pdeath_signal)
        finally:
            if cage is not None:
                cage.remove()

    def describe(self) -> dict:
        return {"sandbox": self.name, "cgroups": self.cgroups, **({"kernel": self.kernel} if self.kernel else {})}


class PlainSandbox(_Base):
    """No isolation (the fallback): a subprocess with the same limits, environment and kill.
    Recorded as ``sandbox: none`` so nobody mistakes it for isolation."""

    name = "none"

    def __init__(self, limits: ResourceLimits | None = None, reason: str = ""):
        super().__init__(limits)
        self.reason = reason

    # The supervisor turns the harness's death into a kill of the command's whole process group.
    pdeath_signal = signal.SIGTERM

    def wrap(self, argv, cwd, mounts, scratch) -> list[str]:
        return [sys.executable, "-I", "-S", str(SUPERVISOR), *argv]

    def env(self, scratch: Path) -> dict[str, str]:
        return command_env(home=str(scratch / "home"), tmpdir=str(scratch), extra=self.kernel_env())


SUPERVISOR = Path(__file__).with_name("supervise.py")


def python_installs() -> list[Path]:
    """The interpreter's folders (venv and the base install it links to), resolved."""
    paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve().parent}
    keep = []
    for p in sorted(paths, key=lambda p: len(p.parts)):
        if not any(parent in p.parents for parent in keep):
            keep.append(p)
    return keep


class BwrapSandbox(_Base):
    """Commands under bubblewrap, with the minimal file-system view described above."""

    name = "bwrap"

    def __init__(self, bwrap: str, limits: ResourceLimits | None = None):
        super().__init__(limits)
        self.bwrap = bwrap

    def env(self, scratch: Path) -> dict[str, str]:
        return command_env(home=SANDBOX_HOME, tmpdir="/tmp", extra=self.kernel_env())

    def view(self) -> list[str]:
        """Arguments for the read-only system part of the view."""
        args = ["--ro-bind", "/usr", "/usr"]
        for name in TOP_LEVEL_SYSTEM:
            p = Path("/") / name
            if p.is_symlink():
                args += ["--symlink", str(p.readlink()), str(p)]
            elif p.is_dir():
                args += ["--ro-bind", str(p), str(p)]
        for name in ETC_FILES:
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        for p in python_installs():
            if not str(p).startswith("/usr/"):
                args += ["--ro-bind", str(p), str(p)]
        args += ["--ro-bind-try", "/sys/devices/system/cpu", "/sys/devices/system/cpu"]
        return args

    def wrap(self, argv, cwd, mounts, scratch) -> list[str]:
        # /tmp first: the Python install may live under /tmp (a CI checkout's venv) and must stay in view on top of it
        args = [self.bwrap, "--bind", str(scratch), "/tmp", *self.view(), "--proc", "/proc", "--dev", "/dev"]
        for m in mounts:
            p = str(Path(m.path).resolve())
            args += ["--bind" if m.writable else "--ro-bind", p, p]
        args += ["--chdir", str(cwd),
                 "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                 "--new-session", "--die-with-parent", "--cap-drop", "ALL",
                 "--", *argv]
        return args


def bwrap_problem(bwrap: str | None) -> str | None:
    """Why bubblewrap cannot be used here (None when it works): missing, or namespaces refused."""
    if not bwrap:
        return "bubblewrap (bwrap) is not installed"
    box = BwrapSandbox(bwrap)
    probe = Path(__import__("tempfile").mkdtemp(prefix="mldb-bwrap-probe-"))
    try:
        argv = box.wrap(["true"], probe, (Mount(probe),), scratch_for(probe / "ws"))
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd=probe)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap failed to start: {exc}"
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    if proc.returncode != 0:
        return f"bubblewrap cannot create a sandbox here: {proc.stderr.strip() or proc.returncode}"
    return None


def get_sandbox(mode: str = "auto", limits: ResourceLimits | None = None, bwrap: str | None = None):
    """``auto``: bubblewrap if it works, else the plain fallback; ``required``: bubblewrap or a
    ConfigError; ``none``: the plain fallback."""
    if mode not in SANDBOX_MODES:
        raise ConfigError(f"unknown sandbox mode '{mode}' (known: {', '.join(SANDBOX_MODES)})")
    if mode == "none":
        return PlainSandbox(limits, reason="--sandbox none")
    exe = bwrap if bwrap is not None else shutil.which("bwrap")
    problem = bwrap_problem(exe)
    if problem is None:
        return BwrapSandbox(exe, limits=limits)
    if mode == "required":
        raise ConfigError(f"--sandbox required, but {problem}")
    return PlainSandbox(limits, reason=problem)

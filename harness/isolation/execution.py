"""Run one command with a wall-clock timeout, a killed process tree and bounded output.

Output is read from pipes as it is written; only its head and tail (``output_cap`` bytes in
all) are kept, with the true byte count, so a command that prints gigabytes costs the
harness a few hundred kilobytes. When the command ends or times out, everything it started
is killed: its cgroup when we could make one (``harness.isolation.cgroup``), else its process group.
A grandchild that escaped both and still holds a pipe cannot hang us: draining stops a
second after the command is gone.

The environment of every command we run on the agent's behalf comes from an allowlist
(``command_env``), never from our own environment minus a denylist.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.isolation import shutdown
from harness.isolation.cgroup import Cage

_PR_SET_PDEATHSIG = 1
try:  # loaded once here: the forked child must not import or allocate much before exec
    import ctypes
    _libc = ctypes.CDLL(None, use_errno=True)
except (OSError, ImportError):  # pragma: no cover - every Linux libc has prctl
    _libc = None


def die_with_parent(sig: int = signal.SIGKILL) -> None:
    """In a forked child: get ``sig`` when the harness dies (even by SIGKILL), so no command outlives it.
    Exits at once if the harness is already gone."""
    if _libc is not None:
        _libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)

DEFAULT_OUTPUT_CAP = 64 * 1024
DRAIN_AFTER_EXIT_S = 1.0

# The only variables a command (agent command, case run, verifier) receives; see docs/sandbox.md.
ENV_ALLOWLIST = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "TERM", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                 "OPENBLAS_NUM_THREADS", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
                 "ATEN_CPU_CAPABILITY")
# Passed through from the harness's own environment when set: which SIMD kernels torch uses
# (default, avx2, avx512). Chaotic training rounds differently under each, so validation runs the
# verifiers under every level the CPU has (docs/integrity.md, "Portable verdicts").
PASSED_THROUGH = ("ATEN_CPU_CAPABILITY",)


class ExecResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str
    stdout: str
    stderr: str
    exit_code: int | None
    duration_s: float
    timed_out: bool
    stdout_bytes: int
    stderr_bytes: int
    truncated: bool


def command_env(home: str, tmpdir: str = "/tmp", extra: dict[str, str] | None = None) -> dict[str, str]:
    """The allowlisted environment: our interpreter first on PATH, one thread, fixed hash seed,
    and nothing of ours (no API keys, cloud credentials or passwords, whatever they are called)."""
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/local/bin:/usr/bin:/bin",
        "HOME": home, "TMPDIR": tmpdir, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "TERM": "dumb",
        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1",
    }
    env.update({name: os.environ[name] for name in PASSED_THROUGH if os.environ.get(name)})
    env.update(extra or {})
    unknown = set(env) - set(ENV_ALLOWLIST)
    if unknown:
        raise ValueError(f"environment variables outside the allowlist: {sorted(unknown)}")
    return env


class HeadTail:
    """The first and last ``cap // 2`` bytes of a stream and its total length, in bounded memory."""

    def __init__(self, cap: int):
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.half:
                del self.tail[:len(self.tail) - self.half]

    def text(self) -> tuple[str, bool]:
        """Decoded output and whether it was cut; the cut is marked in the text, never silent."""
        kept = len(self.head) + len(self.tail)
        if kept >= self.total:
            return bytes(self.head + self.tail).decode("utf-8", errors="replace"), False
        head = bytes(self.head).decode("utf-8", errors="replace")
        tail = bytes(self.tail).decode("utf-8", errors="replace")
        return f"{head}\n[... {self.total - kept} bytes cut by the harness output cap ...]\n{tail}", True


def cap_text(raw: bytes, cap: int) -> tuple[str, bool]:
    """Head and tail of ``raw`` within ``cap`` bytes (the same cut as a streamed command's output)."""
    buf = HeadTail(cap)
    buf.feed(raw)
    return buf.text()


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _pump(proc: subprocess.Popen, bufs: dict, timeout: float, kill) -> bool:
    """Read both pipes into their buffers until the command has exited and its pipes are drained;
    returns whether the timeout fired.

    The command's own exit is waited for, not inferred from its pipes closing: under bubblewrap
    the pipes close when the sandboxed shell ends, a moment before bwrap itself exits, and killing
    bwrap in that moment would turn a clean exit into -9. Once the command has exited, whatever
    it left running is killed and the pipes get a second to drain."""
    sel = selectors.DefaultSelector()
    for pipe, buf in bufs.items():
        os.set_blocking(pipe.fileno(), False)
        sel.register(pipe, selectors.EVENT_READ, buf)
    deadline = time.monotonic() + timeout
    drain_until = None
    timed_out = False
    try:
        while True:
            now = time.monotonic()
            if drain_until is None:
                if proc.poll() is not None:
                    kill()  # the command is done: whatever it left running goes too
                    drain_until = now + DRAIN_AFTER_EXIT_S
                elif now >= deadline:
                    timed_out = True
                    kill()
                    drain_until = now + DRAIN_AFTER_EXIT_S
            if not sel.get_map():
                if drain_until is not None:
                    break
                try:  # pipes closed, command still running (or exiting): wait for it, within the deadline
                    proc.wait(timeout=max(0.0, min(deadline - time.monotonic(), 0.25)))
                except subprocess.TimeoutExpired:
                    pass
                continue
            if drain_until is not None and now >= drain_until:
                break
            wait = (drain_until or deadline) - now
            for key, _ in sel.select(timeout=max(0.0, min(wait, 0.25))):
                try:
                    chunk = os.read(key.fileobj.fileno(), 1 << 16)
                except BlockingIOError:
                    continue
                if chunk:
                    key.data.feed(chunk)
                else:
                    sel.unregister(key.fileobj)
    finally:
        sel.close()
    return timed_out


def run_argv(
    argv: list[str],
    cwd: Path,
    timeout: float,
    command: str | None = None,
    env: dict[str, str] | None = None,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    preexec_fn=None,
    cage: Cage | None = None,
    pdeath_signal: int = signal.SIGKILL,
) -> ExecResult:
    """Run ``argv`` in its own session (and ``cage`` when given); kill everything it started at the end.

    The process gets ``pdeath_signal`` if the harness dies (``harness.isolation.supervise`` turns a SIGTERM into
    a kill of its whole group), and is registered with ``harness.isolation.shutdown`` while it runs, so an
    interrupted run can end it. Nothing starts once the run is stopping."""
    shutdown.check()
    parent = os.getpid()

    def child_setup() -> None:
        die_with_parent(pdeath_signal)
        if os.getppid() != parent:  # the harness died before we could ask to follow it
            os._exit(1)
        if cage is not None:
            cage.join()
        if preexec_fn is not None:
            preexec_fn()

    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=env if env is not None else command_env(home=str(cwd)), start_new_session=True,
        preexec_fn=child_setup,
    )

    def kill() -> None:
        kill_group(proc.pid)
        if cage is not None:
            cage.kill_all()

    out, err = HeadTail(output_cap), HeadTail(output_cap)
    token = shutdown.register(kill)
    try:
        timed_out = _pump(proc, {proc.stdout: out, proc.stderr: err}, timeout, kill)
    finally:
        shutdown.unregister(token)
        kill()
        proc.stdout.close()
        proc.stderr.close()
        proc.wait()
    duration = time.monotonic() - start
    stdout, cut_out = out.text()
    stderr, cut_err = err.text()
    if timed_out:
        stderr += f"\n[harness: command timed out after {timeout:g}s; every process it started was killed]\n"
    return ExecResult(
        command=command or " ".join(argv), stdout=stdout, stderr=stderr,
        exit_code=None if timed_out else proc.returncode, duration_s=round(duration, 4),
        timed_out=timed_out, stdout_bytes=out.total, stderr_bytes=err.total, truncated=cut_out or cut_err,
    )


def run_shell(command: str, cwd: Path, timeout: float, env: dict[str, str] | None = None,
              output_cap: int = DEFAULT_OUTPUT_CAP) -> ExecResult:
    """Run a bash command line in ``cwd`` with no sandbox: for the harness's own trusted commands only."""
    return run_argv(["bash", "-c", command], cwd, timeout, command=command, env=env, output_cap=output_cap)

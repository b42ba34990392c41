"""Run one shell command with a wall-clock timeout, a killed process group and capped output.

Output goes to temp files, not pipes, so a grandchild holding stdout open cannot hang us.
After the command ends (or times out) the whole process group is killed, so nothing
it started in the background survives.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

DEFAULT_OUTPUT_CAP = 64 * 1024


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


def base_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for case commands: our interpreter first on PATH, one thread, fixed hash seed."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
                "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"})
    env.update(extra or {})
    return env


def cap_text(raw: bytes, cap: int) -> tuple[str, bool]:
    """Keep the head and tail of ``raw`` within ``cap`` bytes, marking the cut so it is never silent."""
    if len(raw) <= cap:
        return raw.decode("utf-8", errors="replace"), False
    half = cap // 2
    cut = len(raw) - 2 * half
    head = raw[:half].decode("utf-8", errors="replace")
    tail = raw[-half:].decode("utf-8", errors="replace")
    return f"{head}\n[... {cut} bytes cut by the harness output cap ...]\n{tail}", True


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_argv(
    argv: list[str],
    cwd: Path,
    timeout: float,
    command: str | None = None,
    env: dict[str, str] | None = None,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    preexec_fn=None,
) -> ExecResult:
    """Run ``argv`` in its own session; on timeout, or when it ends, kill its whole process group."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            env=env if env is not None else base_env(), start_new_session=True, preexec_fn=preexec_fn,
        )
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            kill_group(proc.pid)
            proc.wait()
        duration = time.monotonic() - start
        out.seek(0), err.seek(0)
        raw_out, raw_err = out.read(), err.read()
    stdout, cut_out = cap_text(raw_out, output_cap)
    stderr, cut_err = cap_text(raw_err, output_cap)
    if timed_out:
        stderr += f"\n[harness: command timed out after {timeout:g}s; process group killed]\n"
    return ExecResult(
        command=command or " ".join(argv), stdout=stdout, stderr=stderr,
        exit_code=None if timed_out else proc.returncode, duration_s=round(duration, 4),
        timed_out=timed_out, stdout_bytes=len(raw_out), stderr_bytes=len(raw_err), truncated=cut_out or cut_err,
    )


def run_shell(command: str, cwd: Path, timeout: float, env: dict[str, str] | None = None,
              output_cap: int = DEFAULT_OUTPUT_CAP) -> ExecResult:
    """Run a bash command line in ``cwd`` (no sandbox: for the harness's own trusted commands)."""
    return run_argv(["bash", "-c", command], cwd, timeout, command=command, env=env, output_cap=output_cap)

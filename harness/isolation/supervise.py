"""Run one command; if the harness dies, take the command's whole process group down too.

Used by the fallback sandbox only (bubblewrap's ``--die-with-parent`` with its own PID namespace
does this there). The harness starts ``python -I -S supervise.py CMD...`` as a process-group
leader with SIGTERM as its parent-death signal (``execution.die_with_parent``). A SIGTERM or
SIGHUP here means "the harness is gone": kill the group, ourselves included. Otherwise wait for
the command and end the same way it ended, so exit codes and signals read as if unwrapped.

Standard library only, no site packages: it starts in about 10 ms.
"""

import os
import signal
import sys


def _kill_group(signum, frame):  # noqa: ARG001 - signal handler signature
    os.killpg(0, signal.SIGKILL)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: supervise.py COMMAND [ARG...]", file=sys.stderr)
        return 2
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _kill_group)
    pid = os.fork()
    if pid == 0:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            print(f"supervise: cannot run {argv[0]}: {exc}", file=sys.stderr)
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Timeouts kill the whole process group; output caps are recorded, never silent."""

import os
import time
import uuid
from pathlib import Path

from harness.isolation.execution import cap_text, run_shell


def _alive_with(token: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if token in cmdline and entry.name != str(os.getpid()):
                pids.append(int(entry.name))
    return pids


def test_timeout_kills_grandchildren(tmp_path):
    token = f"mldb{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "survivor"
    # a child shell that starts a grandchild sleeper, then the parent waits too
    cmd = f"bash -c 'sleep 30; : {token}' & (sleep 2; touch {marker}) & sleep 30"
    t0 = time.monotonic()
    res = run_shell(cmd, tmp_path, timeout=1.0)
    assert res.timed_out and res.exit_code is None
    assert time.monotonic() - t0 < 10
    assert "timed out" in res.stderr
    time.sleep(2.5)
    assert not marker.exists(), "a grandchild survived the timeout"
    assert _alive_with(token) == []


def test_background_children_killed_after_normal_exit(tmp_path):
    token = f"mldb{uuid.uuid4().hex[:8]}"
    res = run_shell(f"bash -c 'sleep 30; : {token}' & echo started", tmp_path, timeout=10)
    assert res.exit_code == 0 and res.stdout.strip() == "started" and not res.timed_out
    time.sleep(0.2)
    assert _alive_with(token) == []


def test_output_cap_is_recorded(tmp_path):
    res = run_shell("python -c \"print('x' * 100000)\"", tmp_path, timeout=30, output_cap=1000)
    assert res.truncated
    assert res.stdout_bytes == 100001
    assert "bytes cut by the harness output cap" in res.stdout
    assert len(res.stdout) < 1200


def test_small_output_is_untouched():
    text, cut = cap_text(b"hello\n", 100)
    assert text == "hello\n" and not cut


def test_exit_code_and_stderr(tmp_path):
    res = run_shell("echo oops >&2; exit 3", tmp_path, timeout=10)
    assert res.exit_code == 3 and res.stderr.strip() == "oops" and not res.truncated


def test_huge_output_keeps_head_and_tail_and_the_true_count(tmp_path):
    res = run_shell("seq 1 2000000", tmp_path, timeout=60, output_cap=4096)
    assert res.stdout.startswith("1\n2\n3\n") and res.stdout.rstrip().endswith("2000000")
    assert res.stdout_bytes == sum(len(str(i)) + 1 for i in range(1, 2000001))
    assert res.truncated and len(res.stdout) < 4200


def test_a_grandchild_holding_the_pipe_cannot_hang_us(tmp_path):
    t0 = time.monotonic()
    res = run_shell("(setsid sleep 20 &) ; echo done", tmp_path, timeout=30)
    assert res.stdout.strip() == "done" and time.monotonic() - t0 < 5


def test_command_env_is_an_allowlist(monkeypatch):
    import pytest

    from harness.isolation.execution import ENV_ALLOWLIST, command_env

    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    env = command_env(home="/h")
    assert set(env) <= set(ENV_ALLOWLIST) and env["HOME"] == "/h" and "AWS_SECRET_ACCESS_KEY" not in env
    with pytest.raises(ValueError, match="allowlist"):
        command_env(home="/h", extra={"OPENAI_API_KEY": "x"})

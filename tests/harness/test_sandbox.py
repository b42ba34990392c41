"""The sandbox: what an agent's command can and cannot do, under bubblewrap and in the fallback."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import time
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.sandbox import BwrapSandbox, PlainSandbox, ResourceLimits, get_sandbox
from harness.workspace import create_workspace, remove_workspace
from tests.harness.llm_helpers import CASE01, ROOT

BWRAP = shutil.which("bwrap")
needs_bwrap = pytest.mark.skipif(get_sandbox("auto").name != "bwrap", reason="bubblewrap not usable here")


@pytest.fixture
def ws():
    path = create_workspace(CASE01)
    yield path
    remove_workspace(path)


@pytest.fixture
def bwrap_box():
    return get_sandbox("required", hide=[ROOT])


def run(box, command: str, ws: Path, timeout: float = 30):
    return box.run(command, ws, timeout, 64 * 1024)


def sleepers(marker: str) -> list[int]:
    """PIDs whose command line carries ``marker`` (the host's view, across namespaces)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


# --- bubblewrap ----------------------------------------------------------------------


@needs_bwrap
def test_cannot_read_answers_or_the_repository(bwrap_box, ws):
    key = ROOT / "answers" / "case_01" / "key.toml"
    canary = key.read_text().split('canary = "')[1].split('"')[0]
    res = run(bwrap_box, f"cat {key}; ls -A {ROOT}; cat ../../*/answers/case_01/key.toml; echo done", ws)
    assert canary not in res.stdout
    assert "No such file" in res.stderr
    # the repository root is empty in here, but for a Python install inside it (CI's .venv),
    # which is re-exposed read-only so commands can still run python
    interpreters = {p.relative_to(ROOT).parts[0] for p in bwrap_box._interpreter_paths() if ROOT in p.parents}
    assert res.stdout.split() == sorted(interpreters) + ["done"]


@needs_bwrap
def test_cannot_open_a_network_connection(bwrap_box, ws):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        probe = (f"{sys.executable} -c \"import socket\n"
                 f"for addr in [('127.0.0.1', {port}), ('1.1.1.1', 53)]:\n"
                 f"    try:\n        socket.create_connection(addr, timeout=2); print('CONNECTED', addr)\n"
                 f"    except OSError as e:\n        print('refused', addr, e)\"")
        res = run(bwrap_box, probe, ws)
    finally:
        listener.close()
    lines = res.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("refused") for line in lines), res.stdout + res.stderr


@needs_bwrap
def test_only_the_workspace_is_writable(bwrap_box, ws, tmp_path):
    outside = [Path("/root/mldb-probe"), ws.parent / "sibling-probe", tmp_path / "probe", ROOT / "probe"]
    cmd = "; ".join(f"echo x > {p}" for p in outside) + "; echo ok > inside.txt; echo x > /tmp/private"
    res = run(bwrap_box, cmd, ws)
    assert (ws / "inside.txt").read_text() == "ok\n"
    for p in outside:
        assert not p.exists(), p
    assert not Path("/tmp/private").exists()
    assert "Read-only file system" in res.stderr


@needs_bwrap
def test_leaves_no_process_behind(bwrap_box, ws):
    marker = "317.0923"
    res = run(bwrap_box, f"sleep {marker} & setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & "
                         f"(setsid bash -c 'sleep {marker}' &); echo started", ws)
    assert res.stdout.strip() == "started"
    deadline = time.monotonic() + 5
    while sleepers(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers(marker) == []


@needs_bwrap
def test_timeout_kills_the_sandbox(bwrap_box, ws):
    marker = "318.0923"
    res = bwrap_box.run(f"setsid sleep {marker} & sleep {marker}", ws, 1.0, 1024)
    assert res.timed_out and res.exit_code is None
    time.sleep(0.2)
    assert sleepers(marker) == []


@needs_bwrap
def test_torch_training_runs_within_the_limits(bwrap_box, ws):
    res = run(bwrap_box, "python train.py | tail -1; ulimit -v", ws, timeout=120)
    assert res.exit_code == 0, res.stderr
    assert "done in" in res.stdout
    assert res.stdout.split()[-1] == str(ResourceLimits().address_space // 1024)


@needs_bwrap
def test_interpreter_under_a_hidden_folder_stays_usable(ws):
    """CI puts its venv inside the repository; hiding the repository must not hide python."""
    hidden = Path(sys.prefix).resolve().parent
    box = BwrapSandbox(BWRAP, hide=[hidden])
    res = run(box, f"{sys.executable} -c 'print(1)'; ls {hidden}", ws)
    assert res.stdout.splitlines()[0] == "1", res.stderr


@needs_bwrap
def test_hidden_folder_holding_the_workspace_still_exposes_the_workspace(ws):
    box = BwrapSandbox(BWRAP, hide=[ws.parent])
    res = run(box, "cat case.toml | head -1; echo ok > written.txt", ws)
    assert res.stdout.startswith("id = "), res.stderr
    assert (ws / "written.txt").read_text() == "ok\n"


@pytest.mark.parametrize("make", [lambda: PlainSandbox(ResourceLimits(file_size=1 << 20)),
                                  pytest.param(lambda: get_sandbox("required", limits=ResourceLimits(file_size=1 << 20)),
                                               marks=needs_bwrap)], ids=["fallback", "bwrap"])
def test_rlimits_apply(make, ws):
    box = make()
    res = run(box, "ulimit -v; ulimit -f; ulimit -t; head -c 2000000 /dev/zero > big.bin; echo rc=$?; "
                   f"{sys.executable} -c 'b = bytearray(6 << 30)' 2>&1 | tail -1", ws, timeout=20)
    lines = res.stdout.splitlines()
    assert lines[:3] == [str(4 << 20), str(1 << 10), "30"], res.stdout
    assert (ws / "big.bin").stat().st_size <= 1 << 20 and "rc=0" not in res.stdout
    assert "MemoryError" in res.stdout


# --- fallback and selection ------------------------------------------------------------


def test_fallback_when_bwrap_is_missing():
    box = get_sandbox("auto", bwrap="")
    assert isinstance(box, PlainSandbox) and box.name == "none" and "not installed" in box.reason


def test_required_refuses_without_bwrap():
    with pytest.raises(ConfigError, match="--sandbox required"):
        get_sandbox("required", bwrap="")


def test_broken_bwrap_is_detected(tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    box = get_sandbox("auto", bwrap=str(fake))
    assert box.name == "none" and "namespace" in box.reason


def test_unknown_mode():
    with pytest.raises(ConfigError, match="unknown sandbox mode"):
        get_sandbox("docker")


def test_fallback_kills_background_processes(ws):
    marker = "319.0923"
    res = run(PlainSandbox(), f"sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & echo started", ws)
    assert res.stdout.strip() == "started"
    time.sleep(0.2)
    assert sleepers(marker) == []


def test_fallback_runs_in_the_workspace_without_api_keys(ws, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    res = run(PlainSandbox(), "pwd; echo key=${OPENAI_API_KEY:-none}; echo home=$HOME", ws)
    assert res.stdout.splitlines() == [str(ws), "key=none", f"home={ws}"]
    assert os.environ["OPENAI_API_KEY"] == "sk-secret"

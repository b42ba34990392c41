"""The sandbox: what a command that runs the agent's code can and cannot do, under bubblewrap and
in the fallback. Every command gets the same limits and environment in both modes; only
bubblewrap can hide files and block the network."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import time
from pathlib import Path

import pytest

from harness.core.errors import ConfigError
from harness.isolation.sandbox import BwrapSandbox, PlainSandbox, ResourceLimits, get_sandbox
from harness.workspaces.workspace import create_workspace, remove_workspace
from tests.builders.llm_helpers import CASE01, ROOT

BWRAP = shutil.which("bwrap")
BWRAP_OK = get_sandbox("auto").name == "bwrap"
needs_bwrap = pytest.mark.skipif(not BWRAP_OK, reason="bubblewrap not usable here")
MODES = ["fallback", pytest.param("bwrap", marks=needs_bwrap)]


def make_box(mode: str, limits: ResourceLimits | None = None):
    return PlainSandbox(limits) if mode == "fallback" else get_sandbox("required", limits=limits)


@pytest.fixture
def ws():
    path = create_workspace(CASE01)
    yield path
    remove_workspace(path)


def run(box, command: str, ws: Path, timeout: float = 30):
    return box.run(command, ws, timeout, 64 * 1024)


def processes_with(marker: str) -> list[int]:
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


def wait_gone(marker: str, seconds: float = 5) -> list[int]:
    deadline = time.monotonic() + seconds
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return processes_with(marker)


# --- bubblewrap: a minimal file-system view ----------------------------------------------


@pytest.fixture
def decoy_checkouts(tmp_path):
    """Answer keys where a careless sandbox would show them: another checkout under /tmp, one in
    root's home, and this repository's own answers/."""
    made = []
    for base in (tmp_path / "other-checkout", Path("/root") / f"mldb-decoy-{os.getpid()}"):
        key = base / "answers" / "case_01" / "key.toml"
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_text('canary = "DECOY-CANARY"\n')
        made.append(base)
    yield made
    for base in made:
        shutil.rmtree(base, ignore_errors=True)


@needs_bwrap
def test_sees_no_checkout_home_or_answers(decoy_checkouts, ws):
    box = get_sandbox("required")
    probe = ("find / -xdev \\( -name key.toml -o -name verifylib.py \\) 2>/dev/null | head; "
             f"cat {ROOT}/answers/case_01/key.toml {decoy_checkouts[0]}/answers/case_01/key.toml 2>&1; "
             "ls -A /root /home /work 2>&1; echo done")
    res = run(box, probe, ws)
    assert "DECOY-CANARY" not in res.stdout and "canary" not in res.stdout
    assert "key.toml\n" not in res.stdout.replace("No such file", "")
    listed = res.stdout.split("done")[0]
    assert "answers" not in listed.replace(str(ROOT / "answers"), "") or "No such file" in listed
    # the only things of /root or /work in view are the Python installs the commands run
    from harness.isolation.sandbox import python_installs
    for top in ("/root", "/work"):
        visible = {p for p in python_installs() if str(p).startswith(top + "/")}
        if not visible:
            assert f"ls: cannot access '{top}'" in res.stdout or f"{top}:\n\n" in res.stdout + "\n"


@needs_bwrap
def test_cannot_open_a_network_connection(ws):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        probe = (f"{sys.executable} -c \"import socket\n"
                 f"for addr in [('127.0.0.1', {port}), ('1.1.1.1', 53)]:\n"
                 f"    try:\n        socket.create_connection(addr, timeout=2); print('CONNECTED', addr)\n"
                 f"    except OSError as e:\n        print('refused', addr, e)\"")
        res = run(get_sandbox("required"), probe, ws)
    finally:
        listener.close()
    lines = res.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("refused") for line in lines), res.stdout + res.stderr


@needs_bwrap
def test_only_the_workspace_and_its_scratch_are_writable(ws, tmp_path):
    outside = [Path("/root/mldb-probe"), ws.parent / "sibling-probe", tmp_path / "probe", ROOT / "probe",
               Path("/tmp/mldb-private-probe")]
    cmd = "; ".join(f"echo x > {p}" for p in outside) + "; echo ok > inside.txt; echo kept > /tmp/note"
    run(get_sandbox("required"), cmd, ws)
    assert (ws / "inside.txt").read_text() == "ok\n"
    for p in outside:
        assert not p.exists(), p
    assert (ws.parent / "scratch" / "note").read_text() == "kept\n"  # the sample's private /tmp


@needs_bwrap
def test_cannot_see_or_signal_the_harness(ws):
    res = run(get_sandbox("required"), f"ls /proc | grep -cE '^[0-9]+$'; cat /proc/{os.getpid()}/environ 2>&1 | head -c 80; "
                                       f"kill -0 {os.getpid()} 2>&1; echo rc=$?", ws)
    n_procs = int(res.stdout.splitlines()[0])
    assert n_procs < 10, res.stdout
    assert "rc=1" in res.stdout


@needs_bwrap
def test_torch_training_runs_within_the_limits(ws):
    res = run(get_sandbox("required"), "python train.py | tail -1; ulimit -v", ws, timeout=120)
    assert res.exit_code == 0, res.stderr
    assert "done in" in res.stdout
    assert res.stdout.split()[-1] == str(ResourceLimits().address_space // 1024)


@needs_bwrap
def test_interpreter_inside_a_checkout_stays_usable_and_the_checkout_hidden(ws):
    """CI puts its venv inside the repository: the venv is in view, the repository around it is not."""
    res = run(get_sandbox("required"), f"{sys.executable} -c 'print(1)'; ls {ROOT}/answers 2>&1", ws)
    assert res.stdout.splitlines()[0] == "1", res.stderr
    assert "No such file" in res.stdout


# --- both modes -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_environment_is_an_allowlist(mode, ws, monkeypatch):
    for name, value in (("OPENAI_API_KEY", "sk-secret"), ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
                        ("DATABASE_PASSWORD", "db-secret"), ("PGPASSWORD", "pg-secret")):
        monkeypatch.setenv(name, value)
    res = run(make_box(mode), "env", ws)
    names = {line.split("=", 1)[0] for line in res.stdout.splitlines()}
    assert not {"OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DATABASE_PASSWORD", "PGPASSWORD"} & names
    assert "secret" not in res.stdout
    assert names <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "TERM", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                     "OPENBLAS_NUM_THREADS", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
                     "PWD", "SHLVL", "_"}
    assert os.environ["AWS_SECRET_ACCESS_KEY"] == "aws-secret"


@pytest.mark.parametrize("mode", MODES)
def test_scratch_tmp_persists_within_a_sample(mode, ws):
    box = make_box(mode)
    run(box, 'echo remembered > "$TMPDIR/note"; echo home > "$HOME/h"', ws)
    res = run(box, 'cat "$TMPDIR/note" "$HOME/h"', ws)
    assert res.stdout == "remembered\nhome\n"


@pytest.mark.parametrize("mode", MODES)
def test_leaves_no_process_behind(mode, ws):
    marker = "317.0923"
    res = run(make_box(mode), f"sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & "
                              f"(setsid bash -c 'sleep {marker}' &); echo started", ws)
    assert res.stdout.strip() == "started"
    box = make_box(mode)
    if mode == "fallback" and not box.cgroups:
        pytest.skip("without cgroups the fallback cannot reach a setsid'd grandchild")
    assert wait_gone(marker) == []


@pytest.mark.parametrize("mode", MODES)
def test_timeout_kills_everything(mode, ws):
    marker = "318.0923"
    box = make_box(mode)
    res = box.run(f"sleep {marker} & sleep {marker}", ws, 1.0, 1024)
    assert res.timed_out and res.exit_code is None
    assert wait_gone(marker) == []


@pytest.mark.parametrize("mode", MODES)
def test_rlimits_apply(mode, ws):
    box = make_box(mode, ResourceLimits(file_size=1 << 20))
    res = run(box, "ulimit -v; ulimit -f; ulimit -t; head -c 2000000 /dev/zero > big.bin; echo rc=$?; "
                   f"{sys.executable} -c 'b = bytearray(6 << 30)' 2>&1 | tail -1", ws, timeout=20)
    lines = res.stdout.splitlines()
    assert lines[:3] == [str(4 << 20), str(1 << 10), "30"], res.stdout
    assert (ws / "big.bin").stat().st_size <= 1 << 20 and "rc=0" not in res.stdout
    assert "MemoryError" in res.stdout


@pytest.mark.parametrize("mode", MODES)
def test_fork_bomb_is_contained(mode, ws):
    box = make_box(mode, ResourceLimits(max_pids=64))
    if not box.cgroups:
        pytest.skip("no writable cgroup here: RLIMIT_NPROC alone does not bind root, so a fork bomb is not contained")
    t0 = time.monotonic()
    res = box.run("bomb() { bomb | bomb & }; bomb; sleep 3; echo survived-inside", ws, 5.0, 4096)
    assert time.monotonic() - t0 < 20
    assert res.timed_out or res.exit_code is not None
    assert run(box, "echo after", ws).stdout == "after\n"  # the machine still forks


@pytest.mark.parametrize("mode", MODES)
def test_memory_hog_across_processes_is_contained(mode, ws):
    box = make_box(mode, ResourceLimits(max_memory=512 << 20))
    if not box.cgroups:
        pytest.skip("no writable cgroup here: only the per-process address-space limit applies")
    hog = f"{sys.executable} -c 'b = bytearray(400 << 20); import time; time.sleep(5)'"
    res = box.run(f"for i in 1 2 3; do {hog} & done; wait; echo waited", ws, 20.0, 4096)
    assert "waited" in res.stdout  # the hogs were killed, not the harness


# --- selection ---------------------------------------------------------------------------


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


def test_bwrap_class_is_what_auto_picks_here():
    assert isinstance(get_sandbox("auto"), BwrapSandbox) == BWRAP_OK


@pytest.mark.parametrize("mode", MODES)
def test_exit_codes_are_never_turned_into_kills(mode, ws):
    """The pipes close a moment before bubblewrap exits: the exit status must still be the command's."""
    box = make_box(mode)
    assert [box.run("grep -c softmax model.py", ws, 30, 4096).exit_code for _ in range(25)] == [0] * 25
    res = box.run("exec >/dev/null 2>&1; sleep 1; exit 3", ws, 30, 4096)
    assert (res.exit_code, res.timed_out) == (3, False) and res.duration_s >= 1
    res = box.run("exec >/dev/null 2>&1; sleep 30", ws, 1.5, 4096)
    assert res.timed_out and res.exit_code is None


@needs_bwrap
def test_a_python_install_under_tmp_stays_in_view(ws, tmp_path, monkeypatch):
    """CI clones under /tmp, so its venv is under /tmp, which the sandbox replaces with the sample's
    scratch folder: the venv must be mounted on top of that, not hidden by it."""
    import subprocess

    import harness.isolation.sandbox as sandbox_module

    venv = Path("/tmp") / f"mldb-test-venv-{os.getpid()}"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    try:
        installs = [*sandbox_module.python_installs(), venv]
        monkeypatch.setattr(sandbox_module, "python_installs", lambda: installs)
        res = run(get_sandbox("required"), f"{venv}/bin/python -c 'import sys; print(sys.prefix)'", ws)
        assert res.stdout.strip() == str(venv), res.stderr
    finally:
        shutil.rmtree(venv, ignore_errors=True)

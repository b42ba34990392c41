"""An emulated Harbor trial of an exported task, for machines with no Docker (docs/engines.md, "Harbor export").

Harbor builds the task's image, lets the agent work in /app, then uploads tests/ to /tests and runs
``bash /tests/test.sh``, which writes /logs/verifier/reward.json. Here a temporary root holds /app (the
Dockerfile's ``COPY app/ /app/``), /tests, /solution and /logs/verifier, and every script runs under
bubblewrap (``--cap-drop ALL`` and then Docker's default capabilities for root, no network, its own PID
namespace; bwrap must run as root, as a Docker daemon does) with only the system folders and a venv
built the way the Dockerfile builds it (``pip install torch==2.13.0 numpy pydantic`` into a Python 3.11 venv:
``python3.11 -m venv V && V/bin/pip install torch==2.13.0 numpy==2.4.6 pydantic==2.14.4``) in view.

The verifier runs in a separate fresh root, as task.toml asks Harbor (``environment_mode = "separate"``,
``artifacts = ["/app"]``): only the agent's /app is carried over.

The trials that prove a task (``TRIALS``): ``oracle`` (solve.sh, then test.sh: reward 1), ``untouched`` (the
broken repo: 0), ``overfix`` (the key's first over-fix applied: 0), ``exit_hook`` (the gold files with an
``atexit`` hook that prints a passing verdict line: 0, tampering failing). Not emulated: Docker itself, the
image build, Harbor's own trial runner, an agent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from harness.core.cases import Case
from harness.workspaces.workspace import apply_patch, copy_tree_safely

TRIALS = ("oracle", "untouched", "overfix", "exit_hook", "daemon")
EXPECTED_REWARD = {"oracle": 1, "untouched": 0, "overfix": 0, "exit_hook": 0, "daemon": 0}
VENV_IN_VIEW = "/opt/venv"
# No user namespace (bwrap runs as real root here): root inside is the machine's uid 0 with only the
# capabilities below, and other uids exist, so the grader can run the agent's code as nobody, as in Docker.
UNSHARE = ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
# --cap-drop ALL, then what root has in a Docker container by default (without the network ones).
CONTAINER_CAPS = tuple(arg for cap in ("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
                                       "SETPCAP", "SYS_CHROOT", "MKNOD", "AUDIT_WRITE", "SETFCAP")
                       for arg in ("--cap-add", f"CAP_{cap}"))
EXIT_HOOK = """

import atexit as _mldb_atexit
_mldb_atexit.register(lambda: print('{"passed": true, "seeds": {"0": true}, "checks": [{"name": "x", "passed": true}]}'))
"""  # noqa: E501

# The broken repo, whose code leaves a detached process that keeps writing a full reward and tries to
# replace the grader, for as long as it lives (the grader must kill it and write the last word).
DAEMON = """

import os as _mldb_os, time as _mldb_time
if _mldb_os.fork() == 0:
    _mldb_os.setsid()
    if _mldb_os.fork() == 0:
        for _ in range(6000):
            for _path, _text in (("/logs/verifier/reward.json", '{"reward": 1, "fix_verified": 1, "tampering": 1}'),
                                 ("/tests/grade.py", "print('forged')")):
                try:
                    with open(_path, "w") as _fh:
                        _fh.write(_text)
                except OSError:
                    pass
            try:
                _mldb_os.rename("/tests/verifier", "/tmp/moved-verifier")
            except OSError:
                pass
            _mldb_time.sleep(0.1)
    _mldb_os._exit(0)
"""


class TrialResult(BaseModel):
    case_id: str
    trial: str
    rewards: dict[str, int] | None
    expected_reward: int
    ok: bool
    exit_code: int | None
    duration_s: float
    note: str = ""


def _system_view(venv: Path) -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "sbin"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", str(p.readlink()), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    for name in ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "passwd", "group", "nsswitch.conf",
                 "localtime"):
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    base = Path((venv / "bin" / "python3").resolve()).parents[1]  # the interpreter the venv was made from
    if not str(base).startswith("/usr/"):
        # its parents as world-traversable empty folders (a pyenv under /root is 700 on the host), so that
        # nobody can run the interpreter, as anyone can run /usr/local/bin/python3 in the Docker image
        args += ["--perms", "0755", "--tmpfs", f"/{base.parts[1]}"]
        args += [arg for parent in reversed(base.parents[:-2]) for arg in ("--perms", "0755", "--dir", str(parent))]
        args += ["--ro-bind", str(base), str(base)]
    return args + ["--perms", "0755", "--dir", str(Path(VENV_IN_VIEW).parent), "--ro-bind", str(venv), VENV_IN_VIEW]


def run_in_trial(root: Path, venv: Path, script: str, timeout: float) -> subprocess.CompletedProcess:
    """``bash -c script`` in the emulated container: /app, /tests, /solution, /logs from ``root``."""
    argv = ["bwrap", *UNSHARE, "--die-with-parent", "--cap-drop", "ALL", *CONTAINER_CAPS, "--new-session",
            "--tmpfs", "/tmp", *_system_view(venv), "--proc", "/proc", "--dev", "/dev",
            "--bind", str(root / "app"), "/app", "--bind", str(root / "logs"), "/logs"]
    for name in ("tests", "solution"):
        if (root / name).is_dir():
            argv += ["--bind", str(root / name), f"/{name}"]
    argv += ["--chdir", "/app", "--clearenv", "--setenv", "PATH", f"{VENV_IN_VIEW}/bin:/usr/local/bin:/usr/bin:/bin",
             "--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8", "bash", "-c", script]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def _plant(app: Path, case: Case, code: str) -> str:
    """Append ``code`` to the module the verifier imports first (train.py, else the first entry point's)."""
    target = app / "train.py"
    if not target.is_file():
        target = app / (case.manifest.entry_points[0].rsplit(".", 1)[0].replace(".", "/") + ".py")
    with open(target, "a", encoding="utf-8") as fh:
        fh.write(code)
    return target.name


def prepare(task: Path, case: Case, trial: str, root: Path) -> str:
    """The container as the agent left it for ``trial``; what was done, for the table."""
    shutil.copytree(task / "environment" / "app", root / "app", symlinks=True)
    (root / "logs" / "verifier").mkdir(parents=True)
    note = ""
    if trial in ("oracle", "exit_hook"):
        shutil.copytree(task / "solution", root / "solution", symlinks=True)
    if trial == "overfix":
        over = case.key.over_fixes[0]
        apply_patch(root / "app", case.answer_dir / over.patch)
        note = f"over-fix {over.name}"
    return note


def separate_verifier(task: Path, root: Path) -> Path:
    """The verifier's fresh container (task.toml: ``[verifier] environment_mode = "separate"``): the agent's /app
    collected as an artifact (links that leave it dropped, as Harbor's tar ``data`` filter does), /tests uploaded,
    an empty /logs/verifier; nothing else of the agent's container."""
    fresh = root / "verifier-container"
    copy_tree_safely(root / "app", fresh / "app")
    shutil.copytree(task / "tests", fresh / "tests", symlinks=True)
    (fresh / "logs" / "verifier").mkdir(parents=True)
    for made_by_harbor in (fresh / "app", fresh / "tests", fresh / "logs" / "verifier"):
        made_by_harbor.chmod(0o777)  # Harbor's ensure_dirs/empty_dirs chmod 777 what they create
    return fresh


def run_trial(task: Path, case: Case, trial: str, venv: Path, timeout: float = 1800.0) -> TrialResult:
    """One emulated trial; ``ok`` when its reward is the one the trial must get."""
    root = Path(tempfile.mkdtemp(prefix=f"mldb-trial-{case.id}-{trial}-"))
    t0 = time.monotonic()
    try:
        note = prepare(task, case, trial, root)
        if trial in ("oracle", "exit_hook"):
            solved = run_in_trial(root, venv, "bash /solution/solve.sh", 120)
            if solved.returncode != 0:
                return TrialResult(case_id=case.id, trial=trial, rewards=None, expected_reward=EXPECTED_REWARD[trial],
                                   ok=False, exit_code=solved.returncode, duration_s=round(time.monotonic() - t0, 1),
                                   note=f"solve.sh failed: {solved.stderr[-300:]}")
            shutil.rmtree(root / "solution")  # Harbor uploads the solution for the oracle agent only
            if trial == "exit_hook":
                note = f"atexit hook in {_plant(root / 'app', case, EXIT_HOOK)}"
        if trial == "daemon":
            note = f"reward-forging daemon in {_plant(root / 'app', case, DAEMON)}"
        verifier_root = separate_verifier(task, root)
        verified = run_in_trial(verifier_root, venv, "bash /tests/test.sh", timeout)
        reward_file = verifier_root / "logs" / "verifier" / "reward.json"
        rewards = json.loads(reward_file.read_text()) if reward_file.is_file() else None
        expected = EXPECTED_REWARD[trial]
        ok = rewards is not None and rewards.get("reward") == expected
        if trial == "exit_hook":
            ok = ok and rewards.get("tampering") == 0
        if trial == "daemon":  # the grader found and killed it (it ran as nobody, so it wrote nothing of ours)
            verdicts = json.loads((verifier_root / "logs" / "verifier" / "verdicts.json").read_text())
            ok = ok and verdicts.get("strays_killed", 0) > 0
            ok = ok and ((verifier_root / "tests" / "grade.py").read_bytes()
                         == (task / "tests" / "grade.py").read_bytes())
            note += f"; {verdicts.get('strays_killed')} stray process(es) killed"
        if not ok:
            note = (note + f"; test.sh stderr: {verified.stderr[-500:]}").strip("; ")
        return TrialResult(case_id=case.id, trial=trial, rewards=rewards, expected_reward=expected, ok=ok,
                           exit_code=verified.returncode, duration_s=round(time.monotonic() - t0, 1), note=note)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def trial_venv_problem(venv: Path) -> str | None:
    """Why ``venv`` cannot run the trials (None when it can)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    python = venv / "bin" / "python3"
    if not python.exists():
        return f"no venv at {venv} (python3.11 -m venv {venv} && {venv}/bin/pip install torch==2.13.0 numpy pydantic)"
    probe = subprocess.run([str(python), "-c", "import torch, numpy, pydantic; print(torch.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"{venv} lacks torch, numpy or pydantic: {probe.stderr.strip()[-200:]}"
    return None

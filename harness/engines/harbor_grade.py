"""The in-task grader of an exported Harbor task (copied to ``tests/grade.py``; docs/engines.md, "Harbor export").

Run by ``tests/test.sh`` after the agent stopped: ``python3 -I /tests/grade.py --app /app --tests /tests --logs
/logs/verifier``. It imports only the project's own graders, vendored beside it in ``tests/mldb/`` (the
harness's ``judges``, the core records they read and ``harness.core.verifier_output``, the verification's own
harvest and verdict rules), never the agent's code, and runs the hidden verifier the way
``harness.workspaces.verification`` does:

1. /app is copied once, the safe way (no links out, no FIFOs, size-capped); report.json is read from that copy
   and removed from it, as the harness removes it before the diff;
2. the measuring half on a fresh copy of that copy: ``python3 -I measure.py COPY OUT`` (verifylib imports the
   third-party modules before the workspace goes on sys.path); the measurements are harvested (regular files of
   the expected names, size-capped) into a folder of the grader's;
3. the README's command on another fresh copy, as the user runs it; what it printed goes beside the
   measurements as ``readme_run.json``;
4. every workspace copy is removed, then the deciding half runs on the harvested folder alone;
5. fix_verified, location_match, fallback_added, tampering; ``reward.json`` gets one number per criterion and
   ``reward`` = 1 only when fix_verified and tampering pass; ``verdicts.json`` the full verdicts.

Inside Harbor's verifier container there is no bubblewrap. When this script runs as root (Harbor's default),
the agent's code (the measuring half, the README run) runs as ``nobody`` in copies only that user may write,
so it can write neither /tests nor /logs; every process of that user is killed after each run (a daemon
left to rewrite reward.json later dies), and /tests is hashed before and after. What that does and does not
protect: docs/engines.md, "Harbor export". So it is meant for the task's container (or the emulated one,
harness.engines.harbor_trial) only: run as root on a shared machine it would kill that machine's ``nobody``
processes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AGENT_UID = 65534  # nobody: the user the agent's code runs as here, who can write neither /tests nor /logs


def _tail(path: Path, cap: int) -> str:
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - cap))
        return fh.read().decode("utf-8", "replace")


def _head_tail(path: Path, cap: int) -> str:
    """The first and last ``cap // 2`` bytes of a log (what the harness keeps of a command's output)."""
    size = path.stat().st_size
    if size <= cap:
        return path.read_bytes().decode("utf-8", "replace")
    with open(path, "rb") as fh:
        head = fh.read(cap // 2)
    return head.decode("utf-8", "replace") + _tail(path, cap // 2)


def _env(home: Path) -> dict[str, str]:
    """The harness's allowlisted command environment (harness.isolation.execution.command_env)."""
    return {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "HOME": str(home), "TMPDIR": str(home),
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "TERM": "dumb", "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"}


def _give_to_agent_user(path: Path) -> None:
    """Make ``path`` (a copy, a measurements folder, a home) the agent user's, so its code can write there only."""
    if os.geteuid() != 0:
        return
    for folder, dirs, files in os.walk(path):
        for name in [folder, *(os.path.join(folder, n) for n in dirs + files)]:
            os.chown(name, AGENT_UID, AGENT_UID, follow_symlinks=False)


def _as_agent_user() -> None:  # preexec: the agent's code never runs as root
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(AGENT_UID)
        os.setuid(AGENT_UID)


def kill_agent_user_processes() -> int:
    """Kill every process of the agent user (what its code left running: a daemon that would rewrite
    reward.json later); how many were found. Only when the agent's code ran as that user."""
    if os.geteuid() != 0:
        return 0
    found = 0
    for _ in range(50):
        pids = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                uid_line = next(line for line in (entry / "status").read_text().splitlines() if line.startswith("Uid:"))
            except (OSError, StopIteration):
                continue
            if int(uid_line.split()[1]) == AGENT_UID:
                pids.append(int(entry.name))
        if not pids:
            return found
        found += len(pids)
        for pid in pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    return found


def _run(argv: list[str], cwd: Path, timeout: float, work: Path, name: str) -> dict:
    """One process, as the agent user (when we are root), its output to files (an agent's code may print
    gigabytes), killed on timeout, and every process of the agent user killed after it."""
    out, err = work / f"{name}.stdout", work / f"{name}.stderr"
    home = work / f"{name}-home"
    home.mkdir()
    _give_to_agent_user(home)
    t0 = time.monotonic()
    with open(out, "wb") as fo, open(err, "wb") as fe:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, env=_env(home),
                                start_new_session=True, preexec_fn=_as_agent_user)
        try:
            code, timed_out = proc.wait(timeout=timeout), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            code, timed_out = proc.wait(), True
    try:
        os.killpg(proc.pid, 9)  # whatever it left running in its group
    except (ProcessLookupError, PermissionError):
        pass
    strays = kill_agent_user_processes()
    return {"exit_code": None if timed_out else code, "timed_out": timed_out, "strays_killed": strays,
            "duration_s": round(time.monotonic() - t0, 3), "stdout_path": out, "stderr_path": err}


def verify(spec: dict, final: Path, bundle: Path, work: Path) -> dict:
    """The hidden verifier on ``final`` (harness.workspaces.verification._verify_tree, without the sandbox); the
    measurements and the verdict are read by the harness's own code (harness.core.verifier_output)."""
    from harness.core.verifier_output import OUTPUT_CAP, README_RUN_CAP, harvest, verdict_line, verdict_status
    from harness.workspaces.workspace import copy_workspace

    py = sys.executable
    ws, _ = copy_workspace(final, parent=work)
    raw = work / "measurements"
    raw.mkdir()
    for mine in (ws.parent, raw):
        _give_to_agent_user(mine)
    measured = _run([py, "-I", str(bundle / spec["measure"]), str(ws), str(raw)], ws, spec["measure_timeout"],
                    work, "measure")
    clean = work / "harvested"
    skipped = harvest(raw, clean)
    ws2, _ = copy_workspace(final, parent=work)
    _give_to_agent_user(ws2.parent)
    readme = _run(["bash", "-c", spec["run"]], ws2, spec["run_timeout"], work, "readme")
    (clean / "readme_run.json").write_text(json.dumps({
        "command": spec["run"], "exit_code": readme["exit_code"], "timed_out": readme["timed_out"],
        "duration_s": readme["duration_s"], "stdout": _head_tail(readme["stdout_path"], README_RUN_CAP),
        "stderr": _tail(readme["stderr_path"], 20_000)}))
    for copy in (ws.parent, ws2.parent, raw):  # nothing of the agent's left in view of the deciding half
        shutil.rmtree(copy, ignore_errors=True)
    decided = _run([py, "-I", str(bundle / spec["decide"]), str(clean)], clean, spec["decide_timeout"], work, "decide")
    result = verdict_line(_tail(decided["stdout_path"], OUTPUT_CAP))
    procs = {name: {k: v for k, v in run.items() if not k.endswith("_path") and k != "strays_killed"} | {
        "stderr_tail": _tail(run["stderr_path"], 3000)} for name, run in
        (("measure", measured), ("readme_run", readme), ("decide", decided))}
    status, reason = verdict_status(result, decided["exit_code"], decided["timed_out"])
    return {"status": status, "reason": reason, "result": result or {}, **procs,
            "skipped": [s.model_dump() for s in skipped],
            "strays_killed": sum(run["strays_killed"] for run in (measured, readme, decided))}


def read_report(path: Path):
    """/app/report.json as the CLI agents' reports are read (harness.agents.cli_base.read_report_file)."""
    from harness.models import Report

    if path.is_symlink() or not path.is_file():
        return None
    try:
        if path.stat().st_size > 1_000_000:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in data.items() if k in Report.model_fields}
        return Report.model_validate(data)
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def lock_down(tests: Path, logs: Path) -> None:
    """Harbor makes the folders it uploads and creates world-writable (chmod 777); the agent user must not be
    able to rename a verifier file away and plant its own, nor write the rewards."""
    if os.geteuid() != 0:
        return
    for folder, dirs, files in os.walk(tests):
        os.chown(folder, 0, 0)
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chown(path, 0, 0)
                os.chmod(path, 0o755 if name.endswith(".sh") else 0o644)
    os.chown(logs, 0, 0)
    os.chmod(logs, 0o755)


def grade(app: Path, tests: Path, logs: Path) -> dict:
    from harness.core.hashing import sha256_tree
    from harness.models import LegitimateGuard, Location, VerifierRun
    from harness.workspaces.workspace import copy_workspace, diff_trees
    from judges.deterministic import fallback_added, fix_verified, location_match
    from judges.tampering import tampering

    lock_down(tests, logs)
    spec = json.loads((tests / "grading.json").read_text(encoding="utf-8"))
    bundle, pristine = tests / "verifier", tests / "verifier" / "case"
    tests_sha = sha256_tree(tests)
    work = Path(tempfile.mkdtemp(prefix="mldb-grade-"))
    work.chmod(0o711)  # the agent user reaches its own copies inside, and lists nothing
    try:
        final, copied = copy_workspace(app, parent=work)
        report = read_report(final / "report.json")
        if (final / "report.json").is_file() or (final / "report.json").is_symlink():
            (final / "report.json").unlink()
        run = verify(spec, final, bundle, work)
        strays = run.pop("strays_killed", 0)
        if sha256_tree(tests) != tests_sha:  # the agent's code could not write there; if it did, trust nothing
            run = {"status": "fail", "reason": "the verifier's own files in /tests changed while the agent's code ran"}
        diff = diff_trees(pristine, final)
        verdicts = [
            fix_verified(VerifierRun.model_validate(run)),
            location_match(report, [Location.model_validate(x) for x in spec["locations"]], spec["file_lines"]),
            fallback_added(diff, pristine, [LegitimateGuard.model_validate(x) for x in spec["legitimate_guards"]],
                           final),
            tampering(diff, final, set(spec["file_lines"]), spec["oracle_symbols"]),
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    scores = {v.criterion: int(v.status == "pass") for v in verdicts}
    reward = int(scores["fix_verified"] == 1 and scores["tampering"] == 1)
    _write_replacing(logs / "verdicts.json", json.dumps({
        "case_id": spec["case_id"], "reward": reward, "report_found": report is not None,
        "agent_code_uid": AGENT_UID if os.geteuid() == 0 else os.geteuid(), "strays_killed": strays,
        "copy_skipped": [s.model_dump() for s in copied.skipped],
        "verdicts": [v.model_dump(mode="json") for v in verdicts]}, indent=1, default=str))
    rewards = {"reward": reward, **scores}
    _write_replacing(logs / "reward.json", json.dumps(rewards))
    return rewards


def _write_replacing(path: Path, text: str) -> None:
    """Write a new file and rename it over ``path``: whatever was there (a planted link) is replaced, not followed."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".grade-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, required=True)
    parser.add_argument("--tests", type=Path, required=True)
    parser.add_argument("--logs", type=Path, required=True)
    args = parser.parse_args()
    sys.dont_write_bytecode = True  # nothing of ours cached where a later reader would trust it
    sys.path.insert(0, str(args.tests.resolve() / "mldb"))
    args.logs.mkdir(parents=True, exist_ok=True)
    rewards = grade(args.app, args.tests.resolve(), args.logs)
    print(json.dumps(rewards))
    return 0


if __name__ == "__main__":
    sys.exit(main())

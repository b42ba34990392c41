"""`ml-debug-bench session`: one sample driven from outside, one command at a time, through the real CLI.

Each call is its own process, as a driver makes them. The slow tests end sessions, which grades them
(the hidden verifier trains case_01); the others leave them open and clean up after themselves.
"""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.analysis.leaderboard import build_leaderboard, leaderboard_markdown, rows_frame
from harness.core.results import read_manifest, read_samples, write_manifest
from harness.core.transcript import read_transcript
from harness.running.session import _remove_work_dir, open_states
from tests.builders.run_fixtures import make_run, pattern

REPORT = {"root_cause": "model.forward returns softmax probabilities and CrossEntropyLoss applies log_softmax to "
                        "them again, so the loss sees a nearly uniform distribution and the head's gradient shrinks",
          "location": "model.py:19", "fix": "forward returns the raw logits",
          "evidence": "after the change the loss falls well below ln(10) and validation accuracy rises"}


@pytest.fixture
def env(tmp_path, monkeypatch):
    """Session state and workspaces under the test's own folder; open sessions removed afterwards."""
    sessions, tmp = tmp_path / "sessions", tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("MLDB_SESSIONS_DIR", str(sessions))
    e = {**os.environ, "MLDB_SESSIONS_DIR": str(sessions), "TMPDIR": str(tmp), "OMP_NUM_THREADS": "1"}
    yield e
    for _, state in open_states():
        _remove_work_dir(Path(state.work_dir))


def cli(env, *args, cwd, stdin=""):
    return subprocess.run([sys.executable, "-m", "harness.cli", "session", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900, input=stdin)


def start(env, root, out, *extra):
    res = cli(env, "start", "case_01", "--out", str(out), "--json", *extra, cwd=root)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def transcript_of(run: str) -> list:
    (path,) = sorted(Path(run, "transcripts").glob("*.jsonl"))
    return read_transcript(path)


def test_start_records_the_prompt_and_exec_records_edits_from_the_files(env, project_root, tmp_path):
    s = start(env, project_root, tmp_path / "results")
    ws = Path(s["workspace"])
    assert (ws / "train.py").is_file() and "report.json" in s["prompt"] and str(ws) in s["prompt"]
    assert not any(p.name == "answers" for p in ws.parent.iterdir())
    res = cli(env, "exec", s["session"], "--", "sed -i 's/softmax(dim=-1)/softmax(dim=-1) * 1/' model.py && echo done",
              cwd=project_root)
    assert res.returncode == 0 and res.stdout.startswith("exit code: 0") and "done" in res.stdout
    (ws / "data.py").write_text((ws / "data.py").read_text() + "\n# a note made in an editor\n")  # outside exec
    res = cli(env, "exec", s["session"], "--json", "--", "exit 3", cwd=project_root)
    assert json.loads(res.stdout)["exit_code"] == 3
    script = "python - <<'PY'\nprint('it''s', \"quoted\")\nPY\n"  # '-': the command from stdin, no shell quoting
    res = cli(env, "exec", s["session"], "-", cwd=project_root, stdin=script)
    assert res.returncode == 0 and "its quoted" in res.stdout, res.stdout + res.stderr
    events = transcript_of(s["run"])
    assert [e.id for e in events] == list(range(len(events)))
    assert events[1].kind == "message" and events[1].content in s["prompt"]
    edits = [e for e in events if e.kind == "file_edit"]
    sed_call = next(e for e in events if e.kind == "tool_call" and "sed" in e.arguments["command"])
    assert [(e.path, e.call_id) for e in edits] == [("model.py", sed_call.call_id), ("data.py", None)]
    listed = cli(env, "list", cwd=project_root)
    assert s["session"] in listed.stdout and "3/50" in listed.stdout


def test_the_driven_agent_cannot_reach_session_state_or_edit_its_transcript(env, project_root, tmp_path):
    s = start(env, project_root, tmp_path / "results")
    sessions = env["MLDB_SESSIONS_DIR"]
    res = cli(env, "exec", s["session"], "--", f"ls {sessions} {s['run']}; echo MLDB=$MLDB_SESSIONS_DIR", cwd=project_root)
    sandbox = read_manifest(Path(s["run"])).sandbox
    assert "MLDB=\n" in res.stdout  # the allowlisted environment does not carry the sessions folder
    if sandbox == "bwrap":
        assert "No such file or directory" in res.stdout and "state.json" not in res.stdout
    # an edit to the transcript between calls (possible only without bubblewrap) stops the session
    path = next(Path(s["run"], "transcripts").glob("*.jsonl"))
    path.write_text(path.read_text().replace("ls ", "pwd "))
    res = cli(env, "exec", s["session"], "--", "true", cwd=project_root)
    assert res.returncode == 2 and "changed since the harness last wrote it" in res.stderr


def test_bad_input_gets_a_clear_error_and_loses_nothing(env, project_root, tmp_path):
    for bad in ("0123456789ab", "../../etc"):
        res = cli(env, "exec", bad, "--", "true", cwd=project_root)
        assert res.returncode == 2 and f"unknown session '{bad}'" in res.stderr
    res = cli(env, "start", "case_99", "--out", str(tmp_path / "r"), cwd=project_root)
    assert res.returncode == 2 and "case_99" in res.stderr
    s = start(env, project_root, tmp_path / "results")
    before = transcript_of(s["run"])
    missing = tmp_path / "nowhere.json"
    res = cli(env, "submit", s["session"], str(missing), cwd=project_root)
    assert res.returncode == 2 and str(missing) in res.stderr and "still open" in res.stderr
    malformed = tmp_path / "report.json"
    malformed.write_text('{"root_cause": "x", ')
    res = cli(env, "submit", s["session"], str(malformed), cwd=project_root)
    assert res.returncode == 2 and str(malformed) in res.stderr
    (tmp_path / "link.json").symlink_to(malformed)
    res = cli(env, "submit", s["session"], str(tmp_path / "link.json"), cwd=project_root)
    assert res.returncode == 2 and "not a regular file" in res.stderr
    assert transcript_of(s["run"]) == before and s["session"] in cli(env, "list", cwd=project_root).stdout
    assert not (Path(s["run"]) / "samples.jsonl").exists()


def test_two_execs_at_once_take_turns(env, project_root, tmp_path):
    s = start(env, project_root, tmp_path / "results")
    results = {}

    def run(tag, cmd):
        results[tag] = cli(env, "exec", s["session"], "--", cmd, cwd=project_root)

    threads = [threading.Thread(target=run, args=("a", "sleep 2; echo A > a.txt; echo A")),
               threading.Thread(target=run, args=("b", "echo B > b.txt; echo B"))]
    threads[0].start()
    time.sleep(1.0)
    threads[1].start()
    for t in threads:
        t.join()
    assert all(r.returncode == 0 for r in results.values()), [r.stderr for r in results.values()]
    events = transcript_of(s["run"])
    assert [e.id for e in events] == list(range(len(events)))
    kinds = [(e.kind, getattr(e, "call_id", None)) for e in events[3:]]
    # each call's events are contiguous: call, its edit, its result, then the other call
    assert [k for k, _ in kinds] == ["tool_call", "file_edit", "tool_result"] * 2
    assert len({c for _, c in kinds[:3]}) == 1 and len({c for _, c in kinds[3:]}) == 1


@pytest.mark.slow
def test_a_full_session_is_an_ordinary_run_folder(env, project_root, tmp_path):
    out = tmp_path / "results"
    s = start(env, project_root, out)
    ws = Path(s["workspace"])
    for cmd in ("python train.py | tail -3", "grep -n softmax model.py",
                "sed -i 's/return logits.softmax(dim=-1)/return logits/' model.py",
                "python train.py | tail -2",
                f"cat > report.json <<'EOF'\n{json.dumps(REPORT)}\nEOF"):
        res = cli(env, "exec", s["session"], "--", cmd, cwd=project_root)
        assert res.returncode == 0 and "exit code: 0" in res.stdout, res.stdout + res.stderr
    res = cli(env, "submit", s["session"], str(ws / "report.json"), cwd=project_root)
    assert res.returncode == 0, res.stderr
    run_dir = Path(s["run"])
    (sample,) = read_samples(run_dir)
    assert sample.agent == "session:human" and sample.status == "completed"
    v = sample.verdicts
    assert v["fix_verified"].status == "pass" and v["location_match"].status == "pass"
    assert v["tampering"].status == "pass" and v["answer_leak"].status == "pass"
    assert v["root_cause"].status == "unscored" and v["root_cause"].reason == "not_judged"
    assert "return logits\n" in (run_dir / sample.diff).read_text() and "report.json" not in (run_dir / sample.diff).read_text()
    events = transcript_of(s["run"])
    assert [e.kind for e in events].count("tool_call") == 5 and events[-1].kind == "report"
    assert not any(e.kind == "file_edit" and e.path == "report.json" for e in events)
    assert not ws.exists()  # the workspace and private inputs are gone
    manifest = read_manifest(run_dir)
    assert manifest.agent_settings["human"] is True and manifest.case_ids == ["case_01"]
    report = subprocess.run([sys.executable, "-m", "harness.cli", "report", str(run_dir)], cwd=project_root,
                            capture_output=True, text=True, env=env)
    assert report.returncode == 0 and "case_01" in report.stdout and "pass" in report.stdout
    again = cli(env, "exec", s["session"], "--", "ls", cwd=project_root)
    assert again.returncode == 1 and "already ended (completed)" in again.stderr
    resume = subprocess.run([sys.executable, "-m", "harness.cli", "resume", str(run_dir)], cwd=project_root,
                            capture_output=True, text=True, env=env)
    assert resume.returncode == 2 and "session run" in resume.stderr


@pytest.mark.slow
def test_abandon_and_joining_a_run_make_one_human_leaderboard_row(env, project_root, tmp_path):
    first = start(env, project_root, tmp_path / "results")
    second = start(env, project_root, tmp_path / "results", "--run", first["run"])
    assert second["run"] == first["run"]
    other = cli(env, "start", "case_01", "--run", first["run"], "--agent-name", "claude-opus", cwd=project_root)
    assert other.returncode == 2 and "differs from the run" in other.stderr
    cli(env, "exec", second["session"], "--", "echo '# tried something' >> model.py", cwd=project_root)
    for s in (first, second):
        res = cli(env, "abandon", s["session"], "--reason", "out of ideas", cwd=project_root)
        assert res.returncode == 0, res.stderr
    samples = sorted(read_samples(Path(first["run"])), key=lambda x: x.epoch)
    assert [(x.epoch, x.status) for x in samples] == [(0, "agent_error"), (1, "agent_error")]
    assert samples[0].verdicts["fix_verified"].status == "fail" and "out of ideas" in samples[1].error
    board = build_leaderboard([Path(first["run"])])
    (row,) = board.case_sets[0].rows
    assert row.agent == "session:human" and row.human and row.samples == 2


@pytest.mark.slow
def test_a_session_left_open_past_max_wall_is_ended_by_the_next_command(env, project_root, tmp_path):
    wall = 20.0  # room for a loaded machine to start the exec before the budget is gone
    s = start(env, project_root, tmp_path / "results", "--max-wall", str(wall))
    t0 = time.time()
    res = cli(env, "exec", s["session"], "--", "sleep 120", cwd=project_root)  # cut at the wall, not at 300 s
    assert res.returncode == 0 and "timed out" in res.stdout and time.time() - t0 < 60
    time.sleep(1.5)  # past the budget in any case
    listed = cli(env, "list", cwd=project_root)  # any session command ends it
    assert s["session"] in listed.stderr and "limit_reached" in listed.stderr and "no open sessions" in listed.stdout
    (sample,) = read_samples(Path(s["run"]))
    assert sample.status == "limit_reached" and "max_wall_seconds" in sample.error
    assert sample.verdicts["fix_verified"].status == "fail"
    assert transcript_of(s["run"])[-1].error_type == "limit_reached"


def test_leaderboard_marks_human_rows_and_keeps_them_apart(tmp_path):
    arms = {"control": pattern(["pass", "fail", "pass", "fail"])}
    human = make_run(tmp_path, "h", arms, agent="session:human")
    model = make_run(tmp_path, "m", arms, agent="session:human")  # same name, but a model drove it
    m = read_manifest(human)
    write_manifest(human, m.model_copy(update={"agent_settings": {"driver": "session", "human": True}}))
    rows = build_leaderboard([human, model]).case_sets[0].rows
    assert sorted((r.agent, r.human, r.runs[0]) for r in rows) == [("session:human", False, "m"),
                                                                   ("session:human", True, "h")]
    assert "| session:human (human) |" in leaderboard_markdown(build_leaderboard([human, model]))
    frame = rows_frame(build_leaderboard([human, model]))
    assert sorted(frame["human"].tolist()) == [False, True]

"""Runs at scale: parallel samples, resume after any crash, outages kept out of the score, clean stops.

Most tests use a quick copy of case_01 whose verifier only looks at the files (no training), whose
README run is instant and whose reference investigation is one ``sleep``: the whole pipeline runs
for real (sandbox, grading, run folder), in seconds."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.core.errors import ConfigError
from harness.core.results import read_manifest, read_samples, read_state
from harness.models import RunOptions
from harness.running.runner import RunConfig, plan_jobs
from tests.builders.llm_helpers import REPORT, turn
from tests.fakes.llm_server import ScriptedLLMServer, openai_error

HAS_BWRAP = shutil.which("bwrap") is not None
MODES = ["none"] + (["required"] if HAS_BWRAP else [])

MEASURE = '''import json, sys
from pathlib import Path
ws, out = Path(sys.argv[1]), Path(sys.argv[2])
fixed = "softmax" not in (ws / "model.py").read_text()
record = {"seed": 0, "status": "ok", "fixed": fixed}
(out / "seed_0.json").write_text(json.dumps(record) if fixed or not (ws / "CRASH_DECIDE").exists() else "{{{")
'''
DECIDE = '''import json, sys
from pathlib import Path
record = json.loads((Path(sys.argv[1]) / "seed_0.json").read_text())  # garbage crashes this process
ok = bool(record["fixed"])
print(json.dumps({"passed": ok, "seeds": {"0": ok}, "checks": [{"name": "fixed", "passed": ok}]}))
raise SystemExit(0 if ok else 1)
'''


def quick_root(root: Path, sleep: str = "0.2") -> Path:
    answers, case = root / "answers" / "case_01", root / "cases" / "case_01"
    (answers / "measure.py").write_text(MEASURE)
    (answers / "decide.py").write_text(DECIDE)
    (answers / "reference.toml").write_text(
        f'[[steps]]\nthought = "wait"\ncommand = "sleep {sleep}"\n\n[report]\n'
        'root_cause = "x"\nlocation = "model.py:16-19"\n')
    (answers / "symptoms.toml").unlink(missing_ok=True)
    shutil.rmtree(answers / "fixes", ignore_errors=True)
    toml = (case / "case.toml").read_text().replace('run = "python train.py"', 'run = "python -c \'print(1)\'"')
    (case / "case.toml").write_text(toml)
    return root


@pytest.fixture
def quick(mini_root, monkeypatch):
    monkeypatch.setenv("ML_DEBUG_BENCH_ROOT", str(mini_root))
    return quick_root(mini_root)


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


def only_run(out: Path) -> Path:
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return run_dir


def cli_process(args, root: Path, **kw) -> subprocess.Popen:
    env = {**os.environ, "ML_DEBUG_BENCH_ROOT": str(root), "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    return subprocess.Popen([sys.executable, "-c", "from harness.cli import main; main()", *map(str, args)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def processes_with(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (zombies and ourselves excluded)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except OSError:
            continue
        if marker in cmd and state != "Z" and int(pid) != os.getpid():
            found.append(int(pid))
    return found


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def sample_lines(run_dir: Path) -> list[dict]:
    path = run_dir / "samples.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


# --- order and options ---------------------------------------------------------------------


def test_random_order_is_seeded_and_keeps_a_pairs_arms_together(mini_root):
    from harness.core.cases import load_cases

    (case,) = load_cases(mini_root, ["case_01"])
    cases = [case, case.__class__(**{**case.__dict__, "id": "case_02"})]
    cfg = RunConfig(agent=None, cases=cases, out_root=mini_root, epochs=3, conditions=("control", "skill"),
                    order="random", order_seed=7)
    first, again = plan_jobs(cfg), plan_jobs(cfg)
    assert [j.name for j in first] == [j.name for j in again]
    assert len({j.name for j in first}) == 12
    pairs = [(j.case.id, j.epoch) for j in first]
    assert all(pairs[i] == pairs[i + 1] for i in range(0, 12, 2))  # each pair's two arms run back to back
    cfg.order_seed = 8
    assert [j.name for j in plan_jobs(cfg)] != [j.name for j in first]
    cfg.order = "fixed"
    assert [j.name for j in plan_jobs(cfg)][:2] == ["case_01__control__e0", "case_01__skill__e0"]


@pytest.mark.parametrize("args, needle", [
    (["--command-timeout", "-20"], "--command-timeout"),
    (["--max-wall", "0"], "--max-wall"),
    (["--max-parallel", "0"], "--max-parallel"),
    (["--epochs", "0"], "--epochs"),
    (["--max-error-rate", "2"], "--max-error-rate"),
    (["--order", "sideways"], "--order"),
])
def test_bad_options_are_usage_errors_naming_the_flag(quick, tmp_path, args, needle):
    res = invoke("run", "--agent", "null", "--out", tmp_path / "out", *args, "case_01")
    assert res.exit_code == 2 and needle in res.output, res.output
    assert not (tmp_path / "out").exists()


def test_out_pointing_at_a_file_is_a_clear_error(quick, tmp_path):
    target = tmp_path / "a-file"
    target.write_text("x")
    res = invoke("run", "--agent", "null", "--out", target, "case_01")
    assert res.exit_code == 2 and "not a folder" in res.output


def test_run_options_default_judge_cap_matches_the_judge():
    from judges.rubric import DEFAULT_MAX_INPUT_TOKENS

    assert RunOptions(agent="x").judge_max_input_tokens == DEFAULT_MAX_INPUT_TOKENS


# --- parallel --------------------------------------------------------------------------------


def test_parallel_run_gives_the_same_verdicts_as_sequential(quick, tmp_path):
    verdicts = {}
    for n in (1, 3):
        res = invoke("run", "--agent", "reference", "--epochs", "4", "--max-parallel", n, "--cpu-slots", 2,
                     "--out", tmp_path / f"p{n}", "case_01")
        assert res.exit_code == 0, res.output
        run_dir = only_run(tmp_path / f"p{n}")
        samples = read_samples(run_dir)
        assert len(samples) == 4 and len(sample_lines(run_dir)) == 4
        verdicts[n] = {s.sample_id: {c: v.status for c, v in s.verdicts.items()} for s in samples}
        manifest = read_manifest(run_dir)
        assert manifest.options.max_parallel == n and manifest.provenance["max_parallel"] == n
        assert manifest.provenance["openai"] != "missing" and "order_seed" in manifest.provenance
    assert verdicts[1] == verdicts[3]
    assert all(v["fix_verified"] == "pass" and v["location_match"] == "pass" for v in verdicts[3].values())


def test_cpu_slots_bound_concurrent_commands_and_waits_are_not_charged(tmp_path):
    import threading

    from harness.isolation.sandbox import PlainSandbox
    from harness.isolation.slots import CpuSlots, SampleClock, SlottedSandbox

    slots, clocks = CpuSlots(1), [SampleClock() for _ in range(3)]
    ws = tmp_path / "ws"
    ws.mkdir()

    spent = {}

    def one(clock):
        SlottedSandbox(PlainSandbox(), slots, clock).run("sleep 0.3", ws, 10, 1000)
        spent[id(clock)] = (time.monotonic() - clock.start, clock.elapsed())

    threads = [threading.Thread(target=one, args=(c,)) for c in clocks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert slots.peak == 1
    waits = sorted(c.waited for c in clocks)
    assert waits[0] < 0.2 and waits[2] > 0.5  # the last one waited for two others
    totals = sorted(spent.values())
    assert totals[-1][0] > 0.9  # three 0.3 s commands, one after another
    assert totals[-1][1] < totals[-1][0] - 0.5  # the last one's waits are not on its clock


# --- resume ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_resume_after_sigkill_mid_sample(mode, mini_root, tmp_path):
    """A 6-sample run killed with SIGKILL while a sample runs: its commands die with it; resume removes
    the dead run's workspaces, keeps the cut sample's transcript as attempt-1 and finishes exactly six."""
    marker = "2.3456"
    root = quick_root(mini_root, sleep=marker)
    proc = cli_process(["run", "--agent", "reference", "--epochs", "6", "--order", "fixed", "--sandbox", mode,
                        "--out", tmp_path / "out"], root)
    try:
        run_dir = wait_for(lambda: next((p for p in (tmp_path / "out").iterdir() if p.is_dir()), None) if (tmp_path / "out").is_dir() else None, 60, "the run folder")
        wait_for(lambda: len(sample_lines(run_dir)) >= 2 and (run_dir / "transcripts" / "case_01__control__e2.jsonl").exists()
                 and processes_with(f"sleep {marker}"), 60, "two samples done and the third running")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()
    assert wait_for(lambda: not processes_with(f"sleep {marker}"), 5, "the running command to die with the harness") is True
    state = read_state(run_dir)
    assert state.status == "running" and Path(state.scratch_dir).is_dir()  # left behind by the dead run
    done_before = {s["sample_id"] for s in sample_lines(run_dir)}

    res = subprocess.run([sys.executable, "-c", "from harness.cli import main; main()", "resume", str(run_dir)],
                         env={**os.environ, "ML_DEBUG_BENCH_ROOT": str(root)}, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "removed the workspaces a dead run left" in res.stderr
    assert not Path(state.scratch_dir).exists()
    lines = sample_lines(run_dir)
    ids = [line["sample_id"] for line in lines]
    assert len(ids) == 6 and len(set(ids)) == 6 and done_before <= set(ids)
    attempts = sorted(p.name for p in (run_dir / "attempts" / "transcripts").iterdir())
    assert attempts == ["case_01__control__e2.attempt-1.jsonl"]
    manifest = read_manifest(run_dir)
    assert len(manifest.resumes) == 1 and len(manifest.resumes[0].redone) == 6 - len(done_before)
    assert read_state(run_dir).status == "finished"


def test_torn_last_line_is_set_aside_not_fatal(quick, tmp_path):
    res = invoke("run", "--agent", "null", "--epochs", "2", "--order", "fixed", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 0, res.output
    run_dir = only_run(tmp_path / "out")
    path = run_dir / "samples.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])  # the second write cut short by a crash
    with pytest.warns(UserWarning, match="incomplete"):
        assert len(read_samples(run_dir)) == 1
    res = invoke("report", run_dir)
    assert res.exit_code == 0, res.output
    res = invoke("resume", run_dir)
    assert res.exit_code == 0, res.output
    assert "set aside" in res.output
    assert (run_dir / "samples.torn.jsonl").read_text().strip() == lines[1][: len(lines[1]) // 2]
    ids = [line["sample_id"] for line in sample_lines(run_dir)]
    assert sorted(ids) == ["null/control/case_01/0", "null/control/case_01/1"]
    assert read_manifest(run_dir).resumes[0].torn_lines == 1


def test_resume_refuses_changed_inputs_unless_forced(quick, tmp_path):
    res = invoke("run", "--agent", "null", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 0, res.output
    run_dir = only_run(tmp_path / "out")
    with open(quick / "cases" / "case_01" / "train.py", "a") as fh:
        fh.write("\n# edited after the run started\n")
    res = invoke("resume", run_dir)
    assert res.exit_code == 2 and "cases/case_01 changed" in res.output and "--force" in res.output
    res = invoke("resume", run_dir, "--force")
    assert res.exit_code == 0, res.output
    assert read_manifest(run_dir).resumes[-1].forced_mismatches == ["cases/case_01 changed"]


def test_resume_refuses_a_run_that_is_still_going(quick, tmp_path):
    from harness.core.results import write_state

    res = invoke("run", "--agent", "null", "--out", tmp_path / "out", "case_01")
    run_dir = only_run(tmp_path / "out")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)  # ml-debug-bench"])
    try:
        write_state(run_dir, "running")
        state = json.loads((run_dir / "state.json").read_text())
        state["pid"] = sleeper.pid
        (run_dir / "state.json").write_text(json.dumps(state))
        with pytest.raises(ConfigError, match="still being run"):
            from harness.running.resume import check_not_running
            check_not_running(run_dir)
    finally:
        sleeper.kill()
    assert res.exit_code == 0


# --- outages and broken verifiers ----------------------------------------------------------


def test_outage_is_infra_error_unscored_and_redone_by_resume(quick, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with ScriptedLLMServer([openai_error(503, "overloaded", "server_error")] * 2) as srv:
        res = invoke("run", "--agent", "openai:fake", "--base-url", srv.openai_base_url, "--max-retries", "1",
                     "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 1 and "infra_error" in res.output and "resume" in res.output
    run_dir = only_run(tmp_path / "out")
    (sample,) = read_samples(run_dir)
    assert sample.status == "infra_error" and "outage" in sample.error
    assert all(v.status == "unscored" for v in sample.verdicts.values())
    manifest = read_manifest(run_dir)
    fix = [("bash", {"command": "sed -i 's/return logits.softmax(dim=-1)/return logits/' model.py"})]
    with ScriptedLLMServer([turn("openai", calls=fix), turn("openai", calls=[("submit_report", REPORT)])]) as srv:
        manifest.options.base_url = srv.openai_base_url  # the server moved; everything else as recorded
        from harness.core.results import write_manifest
        write_manifest(run_dir, manifest)
        res = invoke("resume", run_dir)
    assert res.exit_code == 0, res.output
    (sample,) = read_samples(run_dir)
    assert sample.status == "completed" and sample.verdicts["fix_verified"].status == "pass"
    (old,) = [json.loads(line) for line in (run_dir / "attempts" / "samples.jsonl").read_text().splitlines()]
    assert old["status"] == "infra_error"
    assert (run_dir / "attempts" / "transcripts" / "case_01__control__e0.attempt-1.jsonl").exists()


def test_a_verifier_broken_on_gold_makes_the_sample_infra_error(quick, tmp_path):
    (quick / "answers" / "case_01" / "decide.py").write_text("raise SystemExit(3)\n")
    res = invoke("run", "--agent", "reference", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 1
    (sample,) = read_samples(only_run(tmp_path / "out"))
    assert sample.status == "infra_error" and "gold patch" in sample.error
    assert all(v.status == "unscored" for v in sample.verdicts.values())


def test_a_verifier_error_caused_by_the_agents_files_is_the_agents_fail(quick, tmp_path):
    """Measurements that crash the deciding process, where the gold patch does not: not an unscored
    sample the agent could hide behind."""
    (quick / "cases" / "case_01" / "CRASH_DECIDE").write_text("x")
    res = invoke("run", "--agent", "null", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 0, res.output
    (sample,) = read_samples(only_run(tmp_path / "out"))
    verdict = sample.verdicts["fix_verified"]
    assert sample.status == "completed" and verdict.status == "fail"
    assert "though it runs on the gold patch" in verdict.reason


# --- clean shutdown -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_the_run_cleanly(mode, sig, mini_root, tmp_path):
    marker = "31.789"
    root = quick_root(mini_root, sleep=marker)
    # SIGINT starts ignored, as for a run started in the background by a script (`cmd &`): the run must
    # still stop on it (it did not, before the runner set its own SIGINT handler)
    ignore_sigint = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sig == signal.SIGINT else None
    proc = cli_process(["run", "--agent", "reference", "--epochs", "3", "--sandbox", mode, "--out", tmp_path / "out"], root,
                       preexec_fn=ignore_sigint)
    try:
        wait_for(lambda: processes_with(f"sleep {marker}"), 60, "the first sample's command")
        run_dir = only_run(tmp_path / "out")
        scratch = Path(read_state(run_dir).scratch_dir)
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-3000:]
    assert time.monotonic() - t0 < 15
    assert f"resume with: ml-debug-bench resume {run_dir}" in err.replace("\n", "")
    assert not processes_with(f"sleep {marker}")
    assert not scratch.exists()  # private inputs and every workspace removed
    state = read_state(run_dir)
    assert state.status == "interrupted" and len(state.interrupted) == 1
    events = [json.loads(line) for line in (run_dir / "transcripts" / f"{state.interrupted[0]}.jsonl").read_text().splitlines()]
    assert events[-1]["event"]["error_type"] == "interrupted" if "event" in events[-1] else events[-1]["error_type"] == "interrupted"
    assert sample_lines(run_dir) == []

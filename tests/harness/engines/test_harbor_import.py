"""`import harbor`: a Harbor job folder (tests/fixtures/harbor_jobs) into a run folder, then judge, report
and leaderboard on it; errored, malformed and forged trials."""

from __future__ import annotations

import json
import os

from typer.testing import CliRunner

from harness.cli import app
from harness.core.results import read_manifest, read_samples
from harness.core.transcript import read_transcript
from harness.engines.harbor_import import VERIFIER_GRADER, import_job
from tests.builders.harbor_fixture import ROOT, job_copy
from tests.fakes.llm_server import Reply, ScriptedLLMServer, openai_json

cli = CliRunner()
KEYS = {"OPENAI_API_KEY": "test-key"}


def imported(tmp_path, job=None):
    job = job or job_copy(tmp_path)
    result = import_job(ROOT, job, tmp_path / "results")
    return result, {s.sample_id.split("/", 2)[2]: s for s in result.samples}


def test_each_trial_becomes_a_sample_graded_by_the_harbor_verifier(tmp_path):
    result, by = imported(tmp_path)
    assert result.problems == [] and len(result.run_dirs) == 1
    run_dir = result.run_dirs[0]
    m = read_manifest(run_dir)
    assert m.agent == "harbor:terminus-2:gpt-fake" and m.sandbox == "harbor:docker"
    assert m.case_ids == ["case_01", "case_07"] and m.epochs == 2 and m.agent_settings["model"] == "gpt-fake"
    good, wrong = by["case_01/0"], by["case_01/1"]
    assert good.status == wrong.status == "completed"
    assert {c: good.verdicts[c].status for c in ("fix_verified", "location_match", "fallback_added", "tampering")} \
        == dict.fromkeys(("fix_verified", "location_match", "fallback_added", "tampering"), "pass")
    assert good.verdicts["fix_verified"].grader == VERIFIER_GRADER
    assert wrong.verdicts["fix_verified"].status == "fail" and wrong.verdicts["tampering"].status == "pass"
    assert good.verdicts["answer_leak"].status == "pass"  # graded here, from the transcript
    assert good.verdicts["root_cause"].reason == "not_judged"  # until `judge`
    assert good.report.location == "model.py:19" and wrong.report.root_cause.startswith("The learning rate")
    assert good.usage.input_tokens == 1200 and good.duration_s == 245.0
    events = read_transcript(run_dir / good.transcript)
    kinds = [e.kind for e in events]
    assert kinds[:2] == ["message", "message"] and kinds.count("tool_call") == 5 and kinds[-1] == "report"
    result_of = {e.call_id: e for e in events if e.kind == "tool_result"}
    assert "val acc 0.86" in result_of["call_4"].stdout
    assert [e.t for e in events][-1] == 130.0  # seconds since the first step
    diff = (run_dir / good.diff).read_text()
    assert "-        return logits.softmax(dim=-1)\n+        return logits\n" in diff and "report.json" not in diff
    assert (run_dir / wrong.diff).read_text() == ""  # the job kept no final files for this trial


def test_an_errored_trial_is_infra_error_not_a_fail(tmp_path):
    _, by = imported(tmp_path)
    s = by["case_07/0"]
    assert s.status == "infra_error" and "RuntimeError" in s.error
    assert {v.status for v in s.verdicts.values()} == {"unscored"}


def test_a_malformed_trajectory_is_named_and_the_other_trials_are_kept(tmp_path):
    job = job_copy(tmp_path)
    path = job / "case_01__Lk3pW9d" / "agent" / "trajectory.json"
    data = json.loads(path.read_text())
    data["steps"][2]["source"] = "robot"
    path.write_text(json.dumps(data))
    res = cli.invoke(app, ["import", "harbor", str(job), "--out", str(tmp_path / "results")])
    assert res.exit_code == 1
    assert "trajectory.json" in res.output and "steps.2.source" in res.output
    (run_dir,) = [p for p in (tmp_path / "results").iterdir()]
    assert sorted(s.case_id for s in read_samples(run_dir)) == ["case_01", "case_07"]


def test_bad_rewards_and_unknown_tasks_name_their_field(tmp_path):
    job = job_copy(tmp_path)
    res_path = job / "case_01__Q7mJx2a" / "result.json"
    data = json.loads(res_path.read_text())
    data["verifier_result"]["rewards"]["fix_verified"] = 0.5  # a partial reward is not a verdict
    res_path.write_text(json.dumps(data))
    other = job / "case_01__Lk3pW9d" / "result.json"
    data = json.loads(other.read_text())
    data["task_name"] = "../../answers/case_01"
    other.write_text(json.dumps(data))
    result, _ = imported(tmp_path, job)
    text = "\n".join(result.problems)
    assert "rewards.fix_verified" in text and "task_name" in text
    assert [s.case_id for s in result.samples] == ["case_07"]


def test_forged_final_files_and_leaks_in_the_trajectory(tmp_path):
    """A kept workspace's links stay links (nothing outside the job is read); a canary in the trajectory fails
    answer_leak; a trial folder that is a link is not a trial."""
    job = job_copy(tmp_path)
    kept = job / "case_01__Q7mJx2a" / "artifacts" / "app"
    (kept / "data.py").unlink()
    os.symlink("/etc/passwd", kept / "data.py")
    traj = job / "case_01__Q7mJx2a" / "agent" / "trajectory.json"
    canary = (ROOT / "answers" / "case_01" / "key.toml").read_text().split('canary = "')[1].split('"')[0]
    traj.write_text(traj.read_text().replace("Submitting.", f"Submitting. {canary}"))
    os.symlink(job / "case_07__Zr8Fh1c", job / "case_07__linked")
    result, by = imported(tmp_path, job)
    assert len(result.samples) == 3
    diff = (result.run_dirs[0] / by["case_01/0"].diff).read_text()
    assert "root:" not in diff and "data.py" in diff
    assert by["case_01/0"].verdicts["answer_leak"].status == "fail"


def test_judge_report_and_leaderboard_work_on_an_imported_run(tmp_path, monkeypatch):
    monkeypatch.setenv("ML_DEBUG_BENCH_JUDGE_CACHE", str(tmp_path / "cache"))
    result, _ = imported(tmp_path)
    run_dir = result.run_dirs[0]
    fail = {"evidence": [], "reasoning": "scripted", "verdict": "fail"}
    answers = [fail, fail, {**fail, "edits": []}] * 2  # root_cause, discriminating_test, localization per sample
    with ScriptedLLMServer([Reply(openai_json(a)) for a in answers]) as srv:
        res = cli.invoke(app, ["judge", str(run_dir), "--judge", "openai:fake-judge"],
                         env={**KEYS, "OPENAI_BASE_URL": srv.openai_base_url})
        assert res.exit_code == 0, res.output
        assert len(srv.requests) == 6  # the two graded samples' LLM criteria, judged from the imported transcripts
    judged = {s.sample_id.split("/", 2)[2]: s for s in read_samples(run_dir)}
    v = judged["case_01/0"].verdicts
    assert v["root_cause"].grader.startswith("llm:openai:fake-judge") and v["root_cause"].status == "fail"
    assert v["localization"].status == "fail"
    assert judged["case_01/0"].verdicts["fix_verified"].grader == VERIFIER_GRADER  # left as Harbor graded it
    assert judged["case_07/0"].verdicts["root_cause"].status == "unscored"  # infra_error: never judged
    res = cli.invoke(app, ["report", str(run_dir), "--format", "csv", "--rows", "samples"])
    assert res.exit_code == 0, res.output
    assert "case_07" in res.output and "infra_error" in res.output
    res = cli.invoke(app, ["leaderboard", str(run_dir), "--out", str(tmp_path / "board")])
    assert res.exit_code == 0, res.output
    board = (tmp_path / "board" / "leaderboard.md").read_text()
    assert "harbor:terminus-2:gpt-fake" in board and run_dir.name in board
    res = cli.invoke(app, ["compare", str(run_dir), str(run_dir)])
    assert res.exit_code in (0, 1), res.output

"""The Inspect AI task end to end: ``inspect eval`` with the local sandbox on two cases, the agent and the
grader role both played by the loopback fake server through the real OpenAI SDK, scores per criterion, then
``import inspect`` into ``report``. Skips when inspect_ai is not installed (CI installs only ``[test]``); run
it in a venv with ``pip install -e '.[test,inspect]'``. The hidden verifier trains each case's model (minutes
on a shared machine), so it runs with ``-T verify=false`` unless MLDB_INSPECT_VERIFY=1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.core.results import read_samples
from harness.core.transcript import read_transcript
from tests.fakes.llm_server import Reply, ScriptedLLMServer, openai_chat, openai_json

pytest.importorskip("inspect_ai", reason="the [inspect] extra is not installed (CI installs only [test])")
INSPECT = shutil.which("inspect", path=str(Path(sys.executable).parent)) or shutil.which("inspect")
ROOT = Path(__file__).resolve().parents[3]
VERIFY = os.environ.get("MLDB_INSPECT_VERIFY") == "1"

FAIL = {"evidence": [], "reasoning": "scripted", "verdict": "fail"}


def script() -> list[Reply]:
    """case_01: look, fix, report; its three judged criteria. case_07: report at once; its three judged criteria."""
    fixed = openai_chat(tool_calls=[("edit_file", {"path": "model.py", "old": "return logits.softmax(dim=-1)",
                                                   "new": "return logits"})])
    report_01 = openai_chat(tool_calls=[("submit_report", {
        "root_cause": "forward returns softmax probabilities and CrossEntropyLoss applies log_softmax again",
        "location": "model.py:19", "fix": "return the logits", "evidence": "rows of the loss input sum to 1"})])
    report_07 = openai_chat(tool_calls=[("submit_report", {
        "root_cause": "unknown", "location": "train.py:1", "fix": "none", "evidence": "none"})])
    look = openai_chat("Look first.", tool_calls=[("bash", {"cmd": "grep -n softmax model.py"})])
    edit = {"event_id": 7, "behaviour_changing": True}  # case_01's file_edit: the 8th event of its transcript
    judged_01 = [Reply(openai_json(a)) for a in (FAIL, FAIL, {**FAIL, "edits": [edit]})]
    judged_07 = [Reply(openai_json(a)) for a in (FAIL, FAIL, {**FAIL, "edits": []})]
    return [Reply(look), Reply(fixed), Reply(report_01), *judged_01, Reply(report_07), *judged_07]


# (installed package's metadata, by which Inspect names the task ml_debug_bench/ml_debug_bench)
def test_inspect_eval_scores_each_criterion_and_imports_into_report(tmp_path):
    assert INSPECT, "the inspect command is not on PATH"
    logs = tmp_path / "logs"
    with ScriptedLLMServer(script()) as srv:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # a source tree on the path hides the
        env = {**env, "OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": srv.openai_base_url,
               "INSPECT_LOG_DIR": str(logs), "OMP_NUM_THREADS": "1", "INSPECT_DISPLAY": "plain"}
        cmd = [INSPECT, "eval", "ml_debug_bench/ml_debug_bench", "-T", "cases=case_01,case_07",
               "-T", f"verify={'true' if VERIFY else 'false'}", "--model", "openai/fake-agent",
               "--model-base-url", srv.openai_base_url, "-M", "responses_api=false",  # the fake speaks Chat Completions
               "--model-role", "grader={model: openai/fake-grader, model_args: {responses_api: false}}",
               "--max-samples", "1", "--log-format", "eval", "--log-dir", str(logs)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, cwd=tmp_path)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        models = [r.body.get("model") for r in srv.requests if isinstance(r.body, dict)]
    assert models.count("fake-grader") == 6 and models.count("fake-agent") == 4  # the grader role, never the agent
    (log,) = logs.glob("*.eval")
    from inspect_ai.log import read_eval_log

    samples = {s.id: s for s in read_eval_log(str(log)).samples}
    assert set(samples) == {"case_01", "case_07"}
    def status(case, scorer):
        return {c: v["status"] for c, v in samples[case].scores[scorer].metadata["verdicts"].items()}

    code, llm = status("case_01", "code_criteria"), status("case_01", "llm_criteria")
    assert code["location_match"] == code["tampering"] == code["answer_leak"] == code["fallback_added"] == "pass"
    assert code["fix_verified"] == ("pass" if VERIFY else "unscored")
    assert samples["case_01"].scores["code_criteria"].value["location_match"] == 1.0
    assert status("case_07", "code_criteria")["location_match"] == "fail"
    assert llm["root_cause"] == llm["discriminating_test"] == llm["localization"] == "fail"
    grader = samples["case_01"].scores["llm_criteria"].metadata["verdicts"]["root_cause"]["grader"]
    assert grader == "llm:inspect:grader/openai/fake-grader"

    out = tmp_path / "results"
    res = CliRunner().invoke(app, ["import", "inspect", str(log), "--out", str(out)])
    assert res.exit_code == 0, res.output
    (run_dir,) = list(out.iterdir())
    by = {s.case_id: s for s in read_samples(run_dir)}
    assert by["case_01"].status == "completed" and by["case_01"].verdicts["location_match"].status == "pass"
    assert by["case_01"].report.location == "model.py:19"
    assert "+        return logits\n" in (run_dir / by["case_01"].diff).read_text()
    events = read_transcript(run_dir / by["case_01"].transcript)
    edits = [e for e in events if e.kind == "file_edit"]
    assert [e.path for e in edits] == ["model.py"]  # recorded by the solver's watcher, after the edit's result
    res = CliRunner().invoke(app, ["report", str(run_dir), "--format", "json", "--rows", "samples"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert {r["case"] for r in rows} == {"case_01", "case_07"}

"""``ml-debug-bench run --agent openai:…|anthropic:…`` end to end against loopback servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.agents.llm import full_requests
from harness.cli import app
from harness.core.hashing import sha256_text
from harness.core.results import read_manifest, read_samples
from harness.core.transcript import read_transcript
from harness.isolation.sandbox import PlainSandbox, get_sandbox
from harness.models import CRITERIA_DETERMINISTIC, Verdict
from tests.builders.llm_helpers import REPORT, ROOT, agent_for, base_url, kinds, turn
from tests.fakes.llm_server import Reply, ScriptedLLMServer, anthropic_error, openai_chat, openai_error

FIX = {"path": "model.py", "old_text": "return logits.softmax(dim=-1)", "new_text": "return logits"}


def invoke(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")


def only_run(out: Path) -> Path:
    runs = [p for p in out.iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


@pytest.mark.parametrize("provider,sandbox", [("openai", "auto"), ("anthropic", "none")])
def test_scripted_case01_episode_end_to_end(provider, sandbox, keys, tmp_path):
    script = [turn(provider, "Reproduce first.", [("bash", {"command": "python train.py"})]),
              turn(provider, calls=[("bash", {"command": "grep -n softmax model.py train.py"})]),
              turn(provider, calls=[("edit_file", FIX)]),
              turn(provider, calls=[("submit_report", REPORT)])]
    with ScriptedLLMServer(script) as srv:
        res = invoke("run", "--agent", f"{provider}:fake", "--base-url", base_url(srv, provider), "--out", tmp_path,
                     "--max-retries", "1", "--temperature", "0", "--sandbox", sandbox, "case_01")
        requests = [r.body for r in srv.requests]
    assert res.exit_code == 0, res.output
    run_dir = only_run(tmp_path)
    assert (run_dir / "report.html").read_text().startswith("<!DOCTYPE html>")  # every run writes its page
    assert f"report: {run_dir / 'report.html'}" in res.output
    manifest = read_manifest(run_dir)
    assert manifest.agent == f"{provider}:fake" and manifest.conditions == ["control"]
    assert manifest.agent_settings["base_url"] == base_url(srv, provider)
    assert manifest.agent_settings["temperature"] == 0.0 and manifest.agent_settings["limits"]["max_steps"] == 50
    assert manifest.sandbox == ("none" if sandbox == "none" else get_sandbox("auto").name)

    (sample,) = read_samples(run_dir)
    assert sample.status == "completed" and sample.report.location == "model.py:19"
    assert sample.usage.input_tokens == 400 and sample.usage.cost_usd is None and sample.tool_errors == 0
    assert sample.verdicts["location_match"].status == "pass"
    assert sample.verdicts["fix_verified"].status == "pass"
    assert sample.verdicts["answer_leak"].status == "pass"

    events = read_transcript(run_dir / sample.transcript)
    assert kinds(events) == [
        "message", "message",                                         # system, task
        "model_call", "usage", "message", "tool_call", "tool_result",  # python train.py
        "model_call", "usage", "tool_call", "tool_result",             # grep
        "model_call", "usage", "tool_call", "file_edit", "tool_result",  # edit model.py
        "model_call", "usage", "tool_call", "report"]                  # submit
    assert [e.role for e in events if e.kind == "message"] == ["system", "user", "assistant"]
    train = events[6]
    assert train.exit_code == 0 and "step  500 | loss 2.29" in train.stdout
    assert "step  500 | loss 2.29" in json.dumps(requests[1])  # the model saw the loss
    assert events[10].stdout.startswith("model.py:19:")
    assert events[14].path == "model.py" and "+        return logits\n" in events[14].diff
    assert events[-1].report.root_cause == REPORT["root_cause"]
    assert full_requests(events) == requests  # every request, exactly as sent
    assert all(e.response and e.latency_s > 0 for e in events if e.kind == "model_call")

    shown = invoke("report", run_dir)
    assert shown.exit_code == 0
    assert "case_01" in shown.output and "completed" in shown.output and f"agent {provider}:fake" in shown.output
    assert f"sandbox {manifest.sandbox}" in shown.output


def test_skill_arm_gets_the_skill_and_control_does_not(keys, tmp_path, monkeypatch):
    # Only the requests matter here; skip the hidden verifier's training runs (the episode test grades for real).
    skipped = {c: Verdict(criterion=c, status="unscored", reason="skipped_in_test", grader="test")
               for c in CRITERIA_DETERMINISTIC}
    monkeypatch.setattr("harness.running.sample.grade_deterministic", lambda *a, **k: dict(skipped))
    skill_dir = tmp_path / "skill"
    skill_dir.mkdir()
    text = "# Debugging\n\nAlways check what tensor enters the loss. SKILL-MARKER-42\n"
    (skill_dir / "SKILL.md").write_text(text)
    with ScriptedLLMServer([turn("openai", calls=[("submit_report", REPORT)])] * 2) as srv:
        res = invoke("run", "--agent", "openai:fake", "--base-url", srv.openai_base_url, "--out", tmp_path / "out",
                     "--skill", skill_dir, "--conditions", "control,skill", "--order", "fixed", "--max-parallel", "1",
                     "case_01")
        systems = [r.body["messages"][0]["content"] for r in srv.requests]
    assert res.exit_code == 0, res.output
    run_dir = only_run(tmp_path / "out")
    manifest = read_manifest(run_dir)
    assert manifest.conditions == ["control", "skill"] and manifest.skill_sha256 == sha256_text(text)
    assert sorted(s.condition for s in read_samples(run_dir)) == ["control", "skill"]
    control, skill = systems  # the fixed order runs control before skill, one at a time
    assert "SKILL-MARKER-42" not in control and "<skill>" not in control
    assert "<skill>" in skill and "SKILL-MARKER-42" in skill and skill.index("<skill>") < skill.index("SKILL-MARKER")


@pytest.mark.parametrize("content", ["", "  \n\n"])
def test_empty_skill_fails_before_any_sample(content, keys, tmp_path):
    skill = tmp_path / "SKILL.md"
    skill.write_text(content)
    with ScriptedLLMServer([]) as srv:
        res = invoke("run", "--agent", "openai:fake", "--base-url", srv.openai_base_url, "--out", tmp_path / "out",
                     "--skill", skill, "case_01")
        assert srv.requests == []
    assert res.exit_code == 2 and "empty" in res.output and "SKILL.md" in res.output
    assert not (tmp_path / "out").exists()


def test_missing_skill_and_bad_conditions_are_clear_errors(keys, tmp_path):
    res = invoke("run", "--agent", "null", "--skill", tmp_path / "nope.md", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 2 and "skill file not found" in res.output
    res = invoke("run", "--agent", "null", "--conditions", "control,skill", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 2 and "no --skill" in res.output
    res = invoke("run", "--agent", "null", "--conditions", "treatment", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 2 and "unknown condition" in res.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_refused_key_aborts_the_whole_run(provider, keys, tmp_path):
    error = (openai_error if provider == "openai" else anthropic_error)(401, "invalid api key", "authentication_error")
    with ScriptedLLMServer([error, turn(provider, calls=[("submit_report", REPORT)])]) as srv:
        res = invoke("run", "--agent", f"{provider}:fake", "--base-url", base_url(srv, provider), "--out", tmp_path,
                     "--epochs", "3", "--max-parallel", "1", "--order", "fixed", "case_01")
        n_requests = len(srv.requests)
    assert res.exit_code == 2
    assert "run aborted at case_01 control" in res.output and "refused the key" in res.output
    assert n_requests == 1  # no retry, no further sample
    run_dir = only_run(tmp_path)
    assert read_samples(run_dir) == []
    events = read_transcript(run_dir / "transcripts" / "case_01__control__e0.jsonl")
    assert [e.kind for e in events][-2:] == ["model_call", "error"] and events[-1].error_type == "run_aborted"


def test_missing_key_fails_before_any_sample(monkeypatch, tmp_path):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    res = invoke("run", "--agent", "openai:gpt-4o", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 2 and "OPENAI_API_KEY" in res.output
    assert not (tmp_path / "out").exists()


def test_sandbox_required_without_bwrap_refuses(keys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    res = invoke("run", "--agent", "null", "--sandbox", "required", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 2 and "--sandbox required" in res.output
    assert not (tmp_path / "out").exists()


def test_max_cost_without_price_is_refused(keys, tmp_path):
    res = invoke("run", "--agent", "openai:unpriced", "--max-cost", "1", "--out", tmp_path / "out", "case_01")
    assert res.exit_code == 2 and "no price" in res.output


def _skip_grading(monkeypatch):
    skipped = {c: Verdict(criterion=c, status="unscored", reason="skipped_in_test", grader="test")
               for c in CRITERIA_DETERMINISTIC}
    monkeypatch.setattr("harness.running.sample.grade_deterministic", lambda *a, **k: dict(skipped))


def test_agent_error_sample_records_the_tokens_it_spent(keys, tmp_path, monkeypatch):
    """Two calls were made (the second reply has no message): the sample is agent_error and still
    carries both calls' tokens."""
    _skip_grading(monkeypatch)
    broken = openai_chat("x", prompt_tokens=300, completion_tokens=7)
    broken["choices"][0]["message"] = None
    with ScriptedLLMServer([turn("openai", calls=[("bash", {"command": "echo hi"})]), Reply(broken)]) as srv:
        res = invoke("run", "--agent", "openai:fake", "--base-url", srv.openai_base_url, "--out", tmp_path,
                     "--max-retries", "0", "case_01")
    assert res.exit_code == 1, res.output  # an errored sample beyond --max-error-rate (default 0)
    assert "1 of 1 sample(s) ended in error" in res.output
    (sample,) = read_samples(only_run(tmp_path))
    assert sample.status == "agent_error"
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (400, 27)


class CrashingSandbox(PlainSandbox):
    """Runs commands until one says CRASH, then fails the way a harness bug would."""

    def run(self, command, *args, **kwargs):
        if "CRASH" in command:
            raise RuntimeError("toolbox failure")
        return super().run(command, *args, **kwargs)


def test_agent_crash_keeps_the_usage_of_the_calls_made(keys, tmp_path, monkeypatch):
    from harness.core.cases import load_cases
    from harness.running.runner import RunConfig, run, run_scratch

    _skip_grading(monkeypatch)
    script = [turn("openai", calls=[("bash", {"command": "echo one"})], tokens=(100, 10)),
              turn("openai", calls=[("bash", {"command": "echo CRASH"})], tokens=(200, 20))]
    with run_scratch(ROOT) as (inputs, work_dir), ScriptedLLMServer(script) as srv:
        cfg = RunConfig(agent=agent_for(srv, "openai"), cases=load_cases(inputs.root, ["case_01"]), out_root=tmp_path,
                        sandbox=CrashingSandbox(), inputs=inputs, work_dir=work_dir)
        (sample,) = read_samples(run(cfg))
    assert sample.status == "agent_error" and "toolbox failure" in sample.error
    assert (sample.usage.input_tokens, sample.usage.output_tokens) == (300, 30)

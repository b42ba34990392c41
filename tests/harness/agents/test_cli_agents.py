"""External agent CLIs: Claude Code and Codex run for real against streaming fakes, ``cmd:``, ``replay:``.

The real-CLI tests need the pinned npm packages (``.ci/setup.d/agent_clis.sh`` installs them in
the agents cache); without them they skip, saying so.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from harness.agents import make_agent
from harness.agents.base import Limits
from harness.agents.cli_base import AGENTS_DIR_ENV, agents_dir, read_report
from harness.agents.replay import ReplayAgent, parse_codex_text_log
from harness.core.cases import load_cases
from harness.core.errors import ConfigError
from harness.core.results import append_sample, read_samples
from harness.core.transcript import read_transcript
from harness.isolation.sandbox import get_sandbox
from harness.running.runner import RunConfig, run_sample
from tests.builders.llm_helpers import ROOT, episode
from tests.fakes.cli_scripts import FINAL, REPORT, claude_code_script, codex_script, mini_swe_script
from tests.fakes.streaming_server import StreamingLLMServer

FIXTURE_LOGS = ROOT / "tests" / "fixtures" / "codex_text_logs"
SEED_LOGS = ROOT.parent / "shared" / "seed-benchmark" / "results" / "gpt56-medium"


def installed(binary: str) -> bool:
    return (agents_dir() / "node_modules" / ".bin" / binary).exists()


needs_claude = pytest.mark.skipif(not installed("claude"), reason=(
    f"Claude Code not installed in {agents_dir()}: run .ci/setup.d/agent_clis.sh "
    "(npm install @anthropic-ai/claude-code@2.1.328)"))
needs_codex = pytest.mark.skipif(not installed("codex"), reason=(
    f"Codex CLI not installed in {agents_dir()}: run .ci/setup.d/agent_clis.sh (npm install @openai/codex@0.169.0)"))


def run_one(agent, tmp_path: Path, condition: str = "control", skill: Path | None = None, limits=Limits()):
    """One graded sample of case_01 through the runner (no private input copies: nothing is edited)."""
    cfg = RunConfig(agent=agent, cases=load_cases(ROOT, ["case_01"]), out_root=tmp_path, sandbox=get_sandbox("auto"),
                    conditions=(condition,), skill_path=skill, skill_text=skill.joinpath("SKILL.md").read_text()
                    if skill else None, limits=limits)
    run_dir = tmp_path / "run"
    sample = run_sample(cfg, run_dir, cfg.cases[0], condition, 0)
    append_sample(run_dir, sample)
    return sample, read_transcript(run_dir / sample.transcript), (run_dir / sample.diff).read_text(), run_dir


def assert_case01_solved(sample, events, diff):
    assert sample.status == "completed", sample.error
    assert sample.report.location == REPORT["location"]
    for criterion in ("fix_verified", "location_match", "tampering", "answer_leak"):
        assert sample.verdicts[criterion].status == "pass", (criterion, sample.verdicts[criterion])
    assert diff.count("+++ ") == 1 and "+        return logits\n" in diff  # report.json and skills removed
    edits = [e for e in events if e.kind == "file_edit"]
    assert [e.path for e in edits] == ["model.py"]
    calls = {e.call_id: e for e in events if e.kind == "tool_call"}
    assert edits[0].call_id in calls  # attributed to the CLI's own tool call
    train = next(e for e in events if e.kind == "tool_result" and "step  500" in e.stdout)
    assert "loss 2.30" in train.stdout
    assert [e for e in events if e.kind == "message" and e.role == "assistant"][-1].content == FINAL
    assert any(e.kind == "usage" and e.input_tokens > 0 for e in events)


def assert_checkout_invisible(events, sandbox_name: str):
    listing = next(e for e in events if e.kind == "tool_result" and "---" in e.stdout)
    if sandbox_name == "bwrap":  # only the Python install inside the checkout is mounted
        assert "answers" not in listing.stdout and "harness" not in listing.stdout and "cases" not in listing.stdout


@needs_claude
@pytest.mark.slow  # a real CLI session plus grading (torch training): 10-20 s
def test_claude_code_fixes_case01_for_real(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with StreamingLLMServer(claude_code_script(ROOT), delay_s=0.3) as srv:
        agent = make_agent("claude-code", ROOT, base_url=srv.base_url)
        t0 = time.monotonic()
        sample, events, diff, _ = run_one(agent, tmp_path)
        wall = time.monotonic() - t0
    assert agent.settings["cli_version"].startswith("2.1.328")
    assert not srv.errors and len(srv.scripted_requests) == 6
    assert all(r.path.startswith("/v1/messages") for r in srv.requests)
    assert_case01_solved(sample, events, diff)
    assert_checkout_invisible(events, get_sandbox("auto").name)
    names = [e.name for e in events if e.kind == "tool_call"]
    assert names == ["Read", "Bash", "Bash", "Edit", "Write"]
    assert wall < 120


@needs_codex
@pytest.mark.slow  # a real CLI session plus grading (torch training): 10-20 s
def test_codex_fixes_case01_for_real(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with StreamingLLMServer(codex_script(ROOT), delay_s=0.3) as srv:
        agent = make_agent("codex:fake-model", ROOT, base_url=srv.openai_base_url)
        sample, events, diff, _ = run_one(agent, tmp_path)
    assert agent.settings["cli_version"] == "codex-cli 0.169.0"
    assert not srv.errors and len(srv.scripted_requests) == 6
    assert all(r.path == "/v1/responses" for r in srv.scripted_requests)
    assert_case01_solved(sample, events, diff)
    assert_checkout_invisible(events, get_sandbox("auto").name)
    assert all(e.name == "bash" for e in events if e.kind == "tool_call")


needs_mini = pytest.mark.skipif(not (agents_dir() / "mini-swe-venv" / "bin" / "mini").exists(), reason=(
    f"mini-swe-agent not installed in {agents_dir() / 'mini-swe-venv'}: run .ci/setup.d/agent_clis.sh"))


@needs_mini
@pytest.mark.slow  # a real CLI session plus grading (torch training): 10-20 s
def test_mini_swe_agent_fixes_case01_for_real(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with StreamingLLMServer(mini_swe_script(ROOT), delay_s=0.1) as srv:
        agent = make_agent("mini-swe-agent:fake-model", ROOT, base_url=srv.openai_base_url)
        sample, events, diff, _ = run_one(agent, tmp_path)
    assert agent.settings["cli_version"] == "2.4.6"
    assert not srv.errors and len(srv.scripted_requests) == 6
    assert all(r.path == "/v1/chat/completions" for r in srv.scripted_requests)
    sample_edits = [e for e in events if e.kind == "file_edit"]
    assert [e.call_id for e in sample_edits] == [None]  # the trajectory is read after the run
    assert_checkout_invisible(events, get_sandbox("auto").name)
    assert sample.status == "completed" and sample.verdicts["fix_verified"].status == "pass"
    assert sample.verdicts["answer_leak"].status == "pass" and diff.count("+++ ") == 1
    assert [e.content for e in events if e.kind == "message" and e.role == "assistant"][-1] == FINAL


def make_skill(tmp_path: Path) -> Path:
    skill = tmp_path / "debug-skill"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: debug-skill\ndescription: Debug ML training runs\n---\n\n"
                                    "Check the loss function's inputs first. SKILL-MARKER-42\n")
    (skill / "references" / "checklist.md").write_text("1. logits vs probabilities\n")
    return skill


@needs_claude
@pytest.mark.slow  # a real CLI session plus grading (torch training): 10-20 s
def test_claude_code_sees_the_skill_as_a_project_skill(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    skill = make_skill(tmp_path)
    with StreamingLLMServer(claude_code_script(ROOT, "debug-skill"), delay_s=0.3) as srv:
        agent = make_agent("claude-code", ROOT, base_url=srv.base_url)
        sample, events, diff, _ = run_one(agent, tmp_path / "out", "skill", skill)
    read = next(e for e in events if e.kind == "tool_result" and "SKILL-MARKER-42" in e.stdout)
    assert read.call_id == next(e for e in events if e.kind == "tool_call").call_id  # the first thing it did
    assert_case01_solved(sample, events, diff)
    assert ".claude" not in diff and not any(".claude" in e.path for e in events if e.kind == "file_edit")


@needs_codex
@pytest.mark.slow  # a real CLI session plus grading (torch training): 10-20 s
def test_codex_sees_the_skill_in_codex_home(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    skill = make_skill(tmp_path)
    with StreamingLLMServer(codex_script(ROOT, "debug-skill"), delay_s=0.3) as srv:
        agent = make_agent("codex:fake-model", ROOT, base_url=srv.openai_base_url)
        sample, events, diff, _ = run_one(agent, tmp_path / "out", "skill", skill)
    assert any(e.kind == "tool_result" and "SKILL-MARKER-42" in e.stdout for e in events)
    assert_case01_solved(sample, events, diff)


def test_missing_cli_is_a_config_error_naming_the_install(tmp_path, monkeypatch):
    monkeypatch.setenv(AGENTS_DIR_ENV, str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    with pytest.raises(ConfigError, match="npm install --prefix .*@anthropic-ai/claude-code@2.1.328"):
        make_agent("claude-code", ROOT)
    with pytest.raises(ConfigError, match="@openai/codex@0.169.0"):
        make_agent("codex", ROOT)


def test_cmd_agent_runs_a_template_and_reads_its_report(tmp_path):
    template = ("grep -c 'report.json' {prompt_file} && sed -i 's/return logits.softmax(dim=-1)/return logits/' model.py"
                " && printf '%s' '" + json.dumps(REPORT) + "' > {report} && echo done; echo oops >&2")
    agent = make_agent(f"cmd:{template}", ROOT)
    outcome, events = episode(agent, tmp_path)
    assert outcome.status == "completed" and outcome.report.location == "model.py:19"
    result = next(e for e in events if e.kind == "tool_result")
    assert result.stdout.strip().endswith("done") and result.stderr.strip() == "oops" and result.exit_code == 0
    assert [e.path for e in events if e.kind == "file_edit"] == ["model.py"]


def test_cmd_agent_without_a_report_is_a_typed_status(tmp_path):
    outcome, events = episode(make_agent("cmd:echo thinking", ROOT), tmp_path)
    assert outcome.status == "agent_error" and outcome.error.startswith("report_missing")
    assert events[-1].kind == "error" and events[-1].error_type == "report_missing"
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "report.json").write_text("{not json")
    report, problem = read_report(tmp_path / "ws")
    assert report is None and problem.startswith("report_invalid")


def test_cmd_template_errors_are_config_errors():
    with pytest.raises(ConfigError, match="unknown placeholders"):
        make_agent("cmd:run {nope}", ROOT)
    with pytest.raises(ConfigError, match="base-url"):
        make_agent("cmd:run --url {base_url}", ROOT)


def test_codex_text_logs_parse_to_the_recorded_responses():
    logs = sorted(FIXTURE_LOGS.glob("events/*/*.stderr"))
    if SEED_LOGS.is_dir():  # the full set, where this machine has it
        logs += sorted(SEED_LOGS.glob("events/*/*.stderr"))
    assert len(logs) >= 3
    for log in logs:
        parsed = parse_codex_text_log(log.read_text(encoding="utf-8"))
        recorded = (log.parents[2] / log.parent.name / f"{log.stem}.json").read_text(encoding="utf-8")
        assert parsed["final"].strip() == recorded.strip(), log
        assert parsed["prompt"] and parsed["tokens"] > 0 and parsed["header"]["model"]


def test_replay_of_codex_text_logs(tmp_path):
    agent = ReplayAgent(FIXTURE_LOGS)
    outcome, events = episode(agent, tmp_path)
    recorded = json.loads((FIXTURE_LOGS / "control" / "case_01.json").read_text())
    assert outcome.status == "completed" and outcome.report.root_cause == recorded["root_cause"]
    finals = [e for e in events if e.kind == "message" and e.role == "assistant"]
    assert json.loads(finals[-1].content) == recorded
    assert outcome.usage.input_tokens > 0 and events[-1].kind == "report"


@pytest.mark.slow  # a real CLI session plus grading (torch training): 10-20 s
def test_replay_of_a_run_folder_regrades_the_same_work(tmp_path):
    template = ("sed -i 's/return logits.softmax(dim=-1)/return logits/' model.py && printf '%s' '"
                + json.dumps(REPORT) + "' > {report}")
    first, first_events, first_diff, run_dir = run_one(make_agent(f"cmd:{template}", ROOT), tmp_path / "a")
    assert first.verdicts["fix_verified"].status == "pass"
    again, events, diff, _ = run_one(make_agent(f"replay:{run_dir}", ROOT), tmp_path / "b")
    assert again.status == first.status and again.report == first.report and diff == first_diff
    assert again.verdicts["fix_verified"].status == "pass"
    assert [e.kind for e in events] == [e.kind for e in first_events]
    assert len(read_samples(run_dir)) == 1


def parse_log(tmp_path: Path, parser_for, log: str):
    """Feed a recorded native log through a parser into a real transcript; returns (sink, events)."""
    from harness.agents.base import AgentTask, Toolbox
    from harness.agents.cli_base import EventSink
    from harness.core.transcript import TranscriptWriter
    from harness.isolation.sandbox import PlainSandbox

    ws = tmp_path / "ws"
    ws.mkdir()
    with TranscriptWriter(tmp_path / "t.jsonl") as tr:
        task = AgentTask(case_id="case_01", workspace=ws, system_prompt="s", prompt="p", limits=Limits(),
                         transcript=tr, tools=Toolbox(ws, tr, PlainSandbox(), Limits()))
        sink = EventSink(task, lambda rel: rel == "report.json")
        parser = parser_for(sink)
        for line in (ROOT / "tests" / "fixtures" / "cli_logs" / log).read_text().splitlines():
            if '"tool_use_id"' in line or ('"command_execution"' in line and '"item.completed"' in line):
                (ws / "x.txt").write_text("hi\n")  # what the recorded command did, so the watcher sees it
            parser.feed(line)
        parser.finish()
        return sink, list(tr.events)


def test_claude_stream_json_becomes_events(tmp_path):
    from harness.agents.claude_code import StreamJsonParser

    sink, events = parse_log(tmp_path, StreamJsonParser, "claude_stream.jsonl")
    assert [e.kind for e in events] == ["usage", "message", "tool_call", "file_edit", "tool_result", "usage", "message"]
    call, edit, result = events[2], events[3], events[4]
    assert call.name == "Bash" and call.arguments["command"] == "ls -la; echo hi > x.txt"
    assert edit.call_id == call.call_id == result.call_id and edit.path == "x.txt"
    assert result.stdout.startswith("total ") and result.exit_code == 0
    assert sink.tally.steps == 2 and sink.tally.cost_usd > 0 and sink.tally.final_text == "Done, final answer."


def test_codex_exec_json_becomes_events(tmp_path):
    from harness.agents.codex import CodexJsonParser

    sink, events = parse_log(tmp_path, lambda s: CodexJsonParser(s, "fake-model"), "codex_exec.jsonl")
    assert [e.kind for e in events] == ["error", "message", "tool_call", "file_edit", "tool_result", "message", "usage"]
    assert events[0].error_type == "cli_warning"
    assert events[2].name == "bash" and "echo hi > x.txt" in events[2].arguments["command"]
    assert events[4].exit_code == 0 and events[3].call_id == events[2].call_id
    assert events[6].input_tokens == 240 and events[6].output_tokens == 60 and sink.tally.steps == 1


def test_builtin_agent_reads_the_skill_references_in_its_workspace(tmp_path):
    from harness.agents.base import AgentTask, Toolbox
    from harness.core.transcript import TranscriptWriter
    from harness.isolation.sandbox import PlainSandbox
    from harness.workspaces.workspace import create_workspace, diff_trees, remove_workspace
    from tests.builders.llm_helpers import CASE01, agent_for, turn
    from tests.fakes.llm_server import ScriptedLLMServer

    skill = make_skill(tmp_path)
    script = [turn("openai", calls=[("bash", {"command": "cat .skill/references/checklist.md"})]),
              turn("openai", calls=[("submit_report", REPORT)])]
    ws = create_workspace(CASE01)
    try:
        with ScriptedLLMServer(script) as srv, TranscriptWriter(tmp_path / "t.jsonl") as tr:
            task = AgentTask(case_id="case_01", workspace=ws, system_prompt="s", prompt="task", limits=Limits(),
                             transcript=tr, tools=Toolbox(ws, tr, PlainSandbox(), Limits()),
                             skill_text="text", skill_path=skill)
            outcome = agent_for(srv, "openai").run(task)
            sent = json.dumps(srv.requests[0].body)
        events = list(tr.events)
        assert outcome.status == "completed"
        assert "logits vs probabilities" in next(e for e in events if e.kind == "tool_result").stdout
        assert ".skill/references/" in sent  # the prompt says where they are
        assert not (ws / ".skill").exists() and diff_trees(CASE01, ws) == ""
        assert not any(e.kind == "file_edit" for e in events)
    finally:
        remove_workspace(ws)


@pytest.mark.slow  # real CLI sessions
@pytest.mark.parametrize("spec", ["claude-code", "codex:fake-model"])
def test_step_budget_stops_a_cli(spec, tmp_path, monkeypatch):
    from tests.fakes.streaming_server import Text, ToolUse

    installed_bin = "claude" if spec.startswith("claude") else "codex"
    if not installed(installed_bin):
        pytest.skip(f"{installed_bin} not installed in {agents_dir()}: run .ci/setup.d/agent_clis.sh")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    call = ToolUse("Bash", {"command": "echo step"}) if spec.startswith("claude") else \
        ToolUse("exec_command", {"cmd": "echo step"})
    with StreamingLLMServer([[Text("again"), call]] * 8, delay_s=0.2) as srv:
        url = srv.base_url if spec.startswith("claude") else srv.openai_base_url
        outcome, events = episode(make_agent(spec, ROOT, base_url=url), tmp_path, limits=Limits(max_steps=2),
                                  sandbox=get_sandbox("auto"))
    assert outcome.status == "limit_reached" and "max_steps (2)" in outcome.error
    assert len(srv.scripted_requests) <= 6  # the stop lands within ~0.3 s (log poll + stop-file poll)
    assert events[-1].kind == "error" and events[-1].error_type == "limit_reached"


@needs_claude
@pytest.mark.slow  # the whole front door: run, then report and compare on the saved folder
def test_run_command_with_claude_code_and_report(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from harness.cli import app
    from harness.core.results import read_manifest

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    with StreamingLLMServer(claude_code_script(ROOT), delay_s=0.3) as srv:
        res = CliRunner().invoke(app, ["run", "--agent", "claude-code", "--base-url", srv.base_url,
                                       "--out", str(tmp_path), "case_01"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    manifest = read_manifest(run_dir)
    assert manifest.agent == "claude-code" and manifest.agent_settings["cli_version"] == "2.1.328 (Claude Code)"
    (sample,) = read_samples(run_dir)
    assert sample.status == "completed" and sample.verdicts["fix_verified"].status == "pass"
    report = CliRunner().invoke(app, ["report", str(run_dir), "--format", "csv"], catch_exceptions=False)
    assert report.exit_code == 0 and "fix_verified" in report.output

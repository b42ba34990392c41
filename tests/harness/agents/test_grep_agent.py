"""The grep baseline (``--agent grep``): real grep commands in the transcript, the first hit of the first
construct that hits as its location, no edit, nothing read outside the workspace."""

from __future__ import annotations

import re
from pathlib import Path

from harness.agents import make_agent
from harness.agents.base import AgentTask, Limits, Toolbox
from harness.agents.grep import CONSTRUCTS, GrepAgent, grep_command
from harness.core.cases import load_cases
from harness.core.results import append_sample
from harness.core.transcript import TranscriptWriter, read_transcript
from harness.isolation.sandbox import get_sandbox
from harness.running.runner import RunConfig, run_sample
from harness.workspaces.workspace import create_workspace, diff_trees, remove_workspace

ROOT = Path(__file__).resolve().parents[3]


def _run_agent(workspace: Path, tmp: Path):
    path = tmp / "t.jsonl"
    with TranscriptWriter(path) as transcript:
        tools = Toolbox(workspace, transcript, get_sandbox("auto"), Limits())
        task = AgentTask(case_id="case_00", workspace=workspace, system_prompt="", prompt="", limits=Limits(),
                         transcript=transcript, tools=tools)
        outcome = GrepAgent().run(task)
    return outcome, read_transcript(path)


def expected_first_hit(folder: Path) -> tuple[str, int, str]:
    """An independent reading of the rule: constructs in order; .py files in sorted path order, then lines."""
    files = sorted((p for p in folder.rglob("*.py") if p.is_file() and not p.is_symlink()),
                   key=lambda p: p.relative_to(folder).as_posix())
    for construct in CONSTRUCTS:
        for p in files:
            for n, line in enumerate(p.read_text().splitlines(), start=1):
                if re.search(construct.pattern, line):
                    return p.relative_to(folder).as_posix(), n, construct.family
    raise AssertionError("no construct hits")


def test_first_hit_of_the_first_construct_that_hits(tmp_path):
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    # 'reshape' (a later construct) hits the earliest file; 'softmax' (the first construct) hits two later files
    (ws / "a_model.py").write_text("x = h.reshape(2, 3)\n")
    (ws / "pkg" / "z.py").write_text("import torch\n\n\np = torch.softmax(x, -1)\n")
    (ws / "b_train.py").write_text("import torch\n\n\n\n\ny = 1\nq = x.softmax(-1)\np = torch.softmax(x, -1)\n")
    (ws / "notes.md").write_text("softmax everywhere\n")  # not a .py file
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "aaa.py").write_text("softmax = 1\n")
    (ws / "aa_link").symlink_to(outside, target_is_directory=True)  # grep -r does not follow it
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and not p.is_symlink()}

    outcome, events = _run_agent(ws, tmp_path)

    assert outcome.status == "completed" and outcome.report.location == "b_train.py:7"
    assert outcome.report.root_cause == CONSTRUCTS[0].cause and outcome.report.fix == ""
    calls = [e for e in events if e.kind == "tool_call"]
    assert [c.arguments["command"] for c in calls] == [grep_command(CONSTRUCTS[0])]  # it stopped at the first hit
    result = next(e for e in events if e.kind == "tool_result")
    assert result.stdout.splitlines() == ["./b_train.py:7:q = x.softmax(-1)", "./b_train.py:8:p = torch.softmax(x, -1)",
                                          "./pkg/z.py:4:p = torch.softmax(x, -1)"]
    assert not [e for e in events if e.kind == "file_edit"]
    assert {p: p.read_bytes() for p in ws.rglob("*") if p.is_file() and not p.is_symlink()} == before
    assert [e.report for e in events if e.kind == "report"] == [outcome.report]


def test_no_construct_hits_reports_unknown(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    outcome, events = _run_agent(ws, tmp_path)
    assert outcome.report.location == "" and outcome.report.root_cause.startswith("unknown")
    assert [e.arguments["command"] for e in events if e.kind == "tool_call"] == [grep_command(c) for c in CONSTRUCTS]


def test_grep_on_a_real_standard_case_end_to_end(tmp_path):
    """case_01 through the runner, graded: the location is the rule's first hit, there is no diff."""
    agent = make_agent("grep", ROOT)
    cfg = RunConfig(agent=agent, cases=load_cases(ROOT, ["case_01"]), out_root=tmp_path, sandbox=get_sandbox("auto"))
    run_dir = tmp_path / "run"
    sample = run_sample(cfg, run_dir, cfg.cases[0], "control", 0)
    append_sample(run_dir, sample)
    file, line, family = expected_first_hit(ROOT / "cases" / "case_01")
    assert sample.status == "completed" and sample.agent == "grep"
    assert sample.report.location == f"{file}:{line}" and family in sample.report.evidence
    assert (run_dir / sample.diff).read_text() == ""
    events = read_transcript(run_dir / sample.transcript)
    commands = [e.arguments["command"] for e in events if e.kind == "tool_call"]
    assert commands and all(c.startswith("grep -rnE --include='*.py' ") for c in commands)
    results = [e for e in events if e.kind == "tool_result"]
    assert f"./{file}:{line}:" in results[-1].stdout
    expected_match = "pass" if any(loc.file == file and loc.start_line <= line <= loc.end_line
                                   for loc in cfg.cases[0].key.locations) else "fail"
    assert sample.verdicts["location_match"].status == expected_match
    assert sample.verdicts["fix_verified"].status == "fail"  # it changes nothing, so the bug is still there
    assert sample.verdicts["tampering"].status == "pass" and sample.verdicts["answer_leak"].status == "pass"


def test_workspace_copy_is_untouched_by_the_search(tmp_path):
    ws = create_workspace(ROOT / "cases" / "case_04")
    try:
        outcome, _ = _run_agent(ws, tmp_path)
        assert diff_trees(ROOT / "cases" / "case_04", ws) == ""
        file, line, _ = expected_first_hit(ROOT / "cases" / "case_04")
        assert outcome.report.location == f"{file}:{line}"
    finally:
        remove_workspace(ws)

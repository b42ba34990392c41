"""Edits are seen from the files: whatever changed a file, the toolbox records a file_edit."""

import pytest

from harness.agents.base import Limits, Toolbox
from harness.core.transcript import TranscriptWriter
from harness.isolation.sandbox import PlainSandbox
from harness.workspaces.snapshot import WorkspaceWatcher
from harness.workspaces.workspace import create_workspace, remove_workspace
from tests.builders.llm_helpers import CASE01


@pytest.fixture
def toolbox(tmp_path):
    ws = create_workspace(CASE01)
    with TranscriptWriter(tmp_path / "t.jsonl") as tr:
        yield Toolbox(ws, tr, PlainSandbox(), Limits(command_timeout=30))
    remove_workspace(ws)


@pytest.mark.parametrize("command", [
    "sed -i 's/return logits.softmax(dim=-1)/return logits/' model.py",
    "perl -pi -e 's/return logits.softmax\\(dim=-1\\)/return logits/' model.py",
    "python -c \"import pathlib; p = pathlib.Path('model.py'); "
    "p.write_text(p.read_text().replace('return logits.softmax(dim=-1)', 'return logits'))\"",
])
def test_shell_edits_are_recorded_as_file_edits(toolbox, command):
    toolbox.bash(command)
    edits = [e for e in toolbox.transcript.events if e.kind == "file_edit"]
    assert [e.path for e in edits] == ["model.py"]
    assert "-        return logits.softmax(dim=-1)\n+        return logits\n" in edits[0].diff
    kinds = [e.kind for e in toolbox.transcript.events]
    assert kinds == ["tool_call", "file_edit", "tool_result"]


def test_created_deleted_and_truncated_files(toolbox):
    toolbox.bash("echo new > notes.txt; rm export.py; truncate -s 0 metrics.py")
    edits = {e.path: e.diff for e in toolbox.transcript.events if e.kind == "file_edit"}
    assert set(edits) == {"notes.txt", "export.py", "metrics.py"}
    assert "+new" in edits["notes.txt"] and "/dev/null" in edits["export.py"]


def test_reading_changes_nothing(toolbox):
    toolbox.bash("cat model.py > /dev/null; python -c 'import model'")
    assert not [e for e in toolbox.transcript.events if e.kind == "file_edit"]


def test_disk_budget(tmp_path):
    ws = create_workspace(CASE01)
    try:
        with TranscriptWriter(tmp_path / "t.jsonl") as tr:
            box = Toolbox(ws, tr, PlainSandbox(), Limits(max_disk_bytes=1_000_000))
            box.bash("head -c 2000000 /dev/urandom > blob.bin")
            assert box.disk_problem and "max_disk_bytes" in box.disk_problem
    finally:
        remove_workspace(ws)


def test_watcher_reports_each_change_once(tmp_path):
    (tmp_path / "a.txt").write_text("1\n")
    w = WorkspaceWatcher(tmp_path)
    (tmp_path / "a.txt").write_text("2\n")
    assert [p for p, _ in w.changes()] == ["a.txt"]
    assert w.changes() == []


def test_an_oversized_diff_keeps_every_hunk_and_marks_what_it_cut():
    from harness.workspaces.snapshot import CUT_MARK, EDIT_DIFF_CAP, file_diff
    old = "".join(f"line {i}\n" for i in range(2000))
    new_lines = old.splitlines(keepends=True)
    for k in range(0, 2000, 100):  # twenty separate edits
        new_lines[k] = f"changed {k}\n"
    new_lines[500:500] = [f"# pad {i} {'x' * 90}\n" for i in range(900)]
    diff = file_diff("a.py", ("file", 1, 0o644, old.encode()), ("file", 2, 0o644, "".join(new_lines).encode()))
    assert len(diff) <= EDIT_DIFF_CAP + 4096
    assert all(f"changed {k}" in diff for k in range(0, 2000, 100))
    assert sum(line.startswith("@@") for line in diff.splitlines()) == 20
    assert any(line.startswith(CUT_MARK) and "cut by the harness" in line for line in diff.splitlines())

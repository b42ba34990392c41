"""An Inspect sample's messages (plain dicts, as in a log) into our transcript: no inspect_ai needed, so CI runs it."""

from __future__ import annotations

from harness.core.transcript import TranscriptWriter, read_transcript
from harness.engines.inspect_transcript import append_messages, report_of

MESSAGES = [
    {"role": "system", "content": "You are a software engineer."},
    {"role": "user", "content": "Fix the repo."},
    {"role": "assistant",
     "content": [{"type": "reasoning", "reasoning": "hidden"}, {"type": "text", "text": "Editing."}],
     "tool_calls": [{"id": "c1", "function": "edit_file", "arguments": {"path": "model.py", "old": "a", "new": "b"}}]},
    {"role": "tool", "tool_call_id": "c1", "function": "edit_file", "content": "edited model.py"},
    {"role": "assistant", "content": "",
     "tool_calls": [{"id": "c2", "function": "bash", "arguments": {"cmd": "false"}},
                    {"id": "c3", "function": "submit_report", "arguments": {"root_cause": "x", "location": "model.py:1",
                                                                           "fix": "y", "evidence": {"loss": 0.4}}}]},
    {"role": "tool", "tool_call_id": "c2", "content": "", "error": {"type": "unknown", "message": "exit 1"}},
    {"role": "tool", "tool_call_id": "c3", "content": "report received"},
]


def test_messages_become_events_with_each_edit_after_its_result(tmp_path):
    edits = [{"call_id": "c1", "path": "model.py", "diff": "--- a/model.py\n+++ b/model.py\n@@ -1 +1 @@\n-a\n+b\n"}]
    with TranscriptWriter(tmp_path / "t.jsonl") as tr:
        append_messages(MESSAGES, edits, tr)
    events = read_transcript(tmp_path / "t.jsonl")
    assert [e.kind for e in events] == ["message", "message", "message", "tool_call", "tool_result", "file_edit",
                                        "tool_call", "tool_call", "tool_result", "tool_result"]
    assert events[2].content == "Editing."  # the hidden reasoning is not what the agent said
    assert events[5].path == "model.py" and events[5].call_id == "c1"
    assert events[8].error == "exit 1"
    report = report_of(MESSAGES)
    assert report.location == "model.py:1" and report.evidence == '{"loss": 0.4}'
    assert report_of(MESSAGES[:3]) is None

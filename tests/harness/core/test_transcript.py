import json

import pandas as pd
import pytest

from harness.core.errors import InputError
from harness.core.transcript import TranscriptWriter, read_transcript


def test_events_are_numbered_appended_and_pandas_readable(tmp_path):
    path = tmp_path / "t.jsonl"
    with TranscriptWriter(path) as tw:
        tw.append("message", role="user", content="hi")
        tw.append("tool_call", call_id="c1", name="bash", arguments={"command": "ls"})
        # written before close: a killed run keeps what it had
        assert len(path.read_text().splitlines()) == 2
        tw.append("tool_result", call_id="c1", stdout="a\n", exit_code=0)
    events = read_transcript(path)
    assert [e.id for e in events] == [0, 1, 2]
    assert [e.kind for e in events] == ["message", "tool_call", "tool_result"]
    df = pd.read_json(path, lines=True)
    assert list(df["kind"]) == ["message", "tool_call", "tool_result"]


def test_bad_event_line_names_file_and_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"kind": "message", "id": 0, "t": 0, "role": "user", "content": "x"}) + "\n"
                    + json.dumps({"kind": "teleport", "id": 1, "t": 0}) + "\n")
    with pytest.raises(InputError, match=r"t\.jsonl: line 2"):
        read_transcript(path)


def test_unknown_event_field_rejected(tmp_path):
    with TranscriptWriter(tmp_path / "t.jsonl") as tw:
        with pytest.raises(Exception):
            tw.append("message", role="user", content="x", mood="happy")


def test_credentials_are_redacted_before_they_are_written(tmp_path):
    from harness.core.transcript import TranscriptWriter, harness_secrets

    secrets = harness_secrets({"OPENAI_API_KEY": "sk-live-123456789", "HOME": "/root", "DB_PASSWORD": "short"})
    assert secrets == {"OPENAI_API_KEY": "sk-live-123456789"}  # short values are not treated as secrets
    with TranscriptWriter(tmp_path / "t.jsonl", secrets=secrets) as tr:
        ev = tr.append("tool_result", call_id="c", stdout="key=sk-live-123456789\n")
    assert ev.stdout == "key=[REDACTED OPENAI_API_KEY]\n"
    assert "sk-live" not in (tmp_path / "t.jsonl").read_text()

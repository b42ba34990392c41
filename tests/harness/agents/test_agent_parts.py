"""Small parts of the LLM agent: prices, skill loading, the edit tool, tool argument checking."""

from __future__ import annotations

import pytest

from harness.agents import make_agent
from harness.agents.base import Limits, Toolbox
from harness.agents.llm_tools import TOOLS, ToolArgumentError, parse_arguments, recorded_arguments
from harness.agents.pricing import Price, PriceTable
from harness.core.errors import ConfigError, InputError
from harness.core.skill import load_skill
from harness.core.transcript import TranscriptWriter
from harness.isolation.sandbox import PlainSandbox
from harness.models import Report
from harness.workspaces.workspace import create_workspace, remove_workspace
from tests.builders.llm_helpers import CASE01, ROOT

# --- prices ---------------------------------------------------------------------


def test_price_lookup_exact_prefix_and_unknown():
    table = PriceTable({"claude-sonnet-4": Price(input=3, output=15), "claude-sonnet-4-5": Price(input=4, output=20)})
    assert table.lookup("claude-sonnet-4").input == 3
    assert table.lookup("claude-sonnet-4-20250514").input == 3
    assert table.lookup("claude-sonnet-4-5-20250929").input == 4  # longest prefix wins
    assert table.lookup("claude-sonnet-40") is None
    assert table.lookup("mystery") is None


def test_price_file_extends_and_overrides(tmp_path):
    path = tmp_path / "prices.toml"
    path.write_text('[models."gpt-4o"]\ninput = 1.0\noutput = 2.0\n\n[models."local-llama"]\ninput = 0\noutput = 0\n')
    table = PriceTable().extend(path)
    assert table.lookup("gpt-4o") == Price(input=1.0, output=2.0)
    assert table.lookup("local-llama").cost(10**6, 10**6) == 0
    assert table.lookup("gpt-4o-mini") is not None  # built-ins kept


@pytest.mark.parametrize("text,field", [('[models."m"]\ninput = 1\n', "models.m.output"),
                                        ('[models."m"]\ninput = -1\noutput = 1\n', "models.m.input"),
                                        ('[model."m"]\ninput = 1\noutput = 1\n', "model")])
def test_bad_price_file_names_the_field(tmp_path, text, field):
    path = tmp_path / "prices.toml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        PriceTable().extend(path)
    assert info.value.field == field and str(path) in str(info.value)


def test_missing_price_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        PriceTable().extend(tmp_path / "nope.toml")


# --- skills ---------------------------------------------------------------------


def test_skill_from_file_or_folder(tmp_path):
    (tmp_path / "SKILL.md").write_text("# skill\nbe careful\n")
    text, sha = load_skill(tmp_path)
    assert text == "# skill\nbe careful\n" and load_skill(tmp_path / "SKILL.md") == (text, sha)


def test_skill_errors(tmp_path):
    with pytest.raises(InputError, match="no SKILL.md"):
        load_skill(tmp_path)
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError, match="cannot read"):
        load_skill(tmp_path / "bad.md")


# --- agent specs ----------------------------------------------------------------


def test_make_agent_specs():
    agent = make_agent("anthropic:claude-sonnet-4-20250514", ROOT, api_key="k", base_url="http://127.0.0.1:9")
    assert agent.name == "anthropic:claude-sonnet-4-20250514" and agent.price is not None
    assert make_agent("null", ROOT, base_url="ignored").name == "null"
    with pytest.raises(ConfigError, match="needs a model"):
        make_agent("openai:", ROOT, api_key="k")
    with pytest.raises(ConfigError, match="unknown agent"):
        make_agent("gemini:x", ROOT)


# --- tool arguments -----------------------------------------------------------------


def test_submit_report_schema_is_the_report_model():
    schema = next(t for t in TOOLS if t["name"] == "submit_report")["parameters"]
    assert set(schema["properties"]) == set(Report.model_fields) and schema["required"] == ["root_cause"]
    assert "discriminating" not in str(schema).lower() and "hypothes" not in str(schema).lower()


def test_parse_arguments():
    assert parse_arguments("bash", '{"command": "ls"}').command == "ls"
    assert parse_arguments("bash", {"command": "ls"}).command == "ls"
    for name, raw in [("bash", "[1]"), ("bash", "{}"), ("bash", '{"command": "ls", "x": 1}'), ("nope", "{}")]:
        with pytest.raises(ToolArgumentError):
            parse_arguments(name, raw)
    assert recorded_arguments("not json") == {"_raw": "not json"}
    assert recorded_arguments("[1, 2]") == {"_raw": "[1, 2]"}


# --- the edit tool --------------------------------------------------------------------


@pytest.fixture
def toolbox(tmp_path):
    ws = create_workspace(CASE01)
    with TranscriptWriter(tmp_path / "t.jsonl") as tr:
        yield Toolbox(ws, tr, PlainSandbox(), Limits())
    remove_workspace(ws)


def test_edit_file_records_a_diff(toolbox):
    res = toolbox.edit_file("model.py", "return logits.softmax(dim=-1)", "return logits")
    assert res.error is None and res.exit_code == 0
    assert "return logits\n" in (toolbox.workspace / "model.py").read_text()
    call, edit, result = toolbox.transcript.events
    assert (call.kind, edit.kind, result.kind) == ("tool_call", "file_edit", "tool_result")
    assert edit.path == "model.py" and "-        return logits.softmax(dim=-1)" in edit.diff
    new = toolbox.edit_file("notes/probe.py", "", "print(1)\n")
    assert new.error is None and (toolbox.workspace / "notes" / "probe.py").read_text() == "print(1)\n"


@pytest.mark.parametrize("path,old,message", [("../escape.py", "", "outside"), ("/etc/passwd", "", "outside"),
                                              ("model.py", "nn.Linear", "occurs 3 times"),
                                              ("model.py", "not there", "occurs 0 times"),
                                              ("missing.py", "x", "does not exist"), (".", "", "directory")])
def test_edit_file_refusals_are_tool_errors(toolbox, path, old, message):
    res = toolbox.edit_file(path, old, "y")
    assert res.error and message in res.error
    assert not any(e.kind == "file_edit" for e in toolbox.transcript.events)


def test_edit_file_does_not_follow_symlinks_out(toolbox, tmp_path):
    target = tmp_path / "outside.txt"
    target.write_text("keep\n")
    (toolbox.workspace / "link.txt").symlink_to(target)
    res = toolbox.edit_file("link.txt", "", "overwritten\n")
    assert res.error and "outside" in res.error and target.read_text() == "keep\n"

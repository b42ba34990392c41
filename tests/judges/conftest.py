import shutil

import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.fakes.llm_server import Reply, ScriptedLLMServer, anthropic_tool_use, openai_json

KEYS = {"OPENAI_API_KEY": "test-key", "ANTHROPIC_API_KEY": "test-key"}


@pytest.fixture(autouse=True)
def _api_keys(monkeypatch, tmp_path):
    for k, v in KEYS.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("ML_DEBUG_BENCH_JUDGE_CACHE", str(tmp_path / "judge-cache"))


def replies(provider: str, answers: list) -> list[Reply]:
    """Scripted judge replies: each answer dict becomes a structured reply of that provider."""
    if provider == "openai":
        return [Reply(openai_json(a)) for a in answers]
    return [Reply(anthropic_tool_use(anthropic_tool(a), a)) for a in answers]


def anthropic_tool(answer: dict) -> str:
    """The tool a scripted Anthropic judge answers with: the one of the answer's schema (one tool per schema)."""
    return "record_" + ("localization_answer" if "edits" in answer else "changes_answer" if "hunks" in answer
                        else "answer")


@pytest.fixture(scope="session")
def judged_run_template(tmp_path_factory):
    """One real reference run of case_01, judged as it ran (``run --judge``) by a scripted fake judge.

    root_cause and discriminating_test get a valid 'fail'; localization gets two schema-violating
    replies, so it is unscored (judge_error). Tests copy the folder before changing it.
    """
    out = tmp_path_factory.mktemp("runs")
    answers = [{"evidence": [], "reasoning": "scripted", "verdict": "fail"}] * 2 + [{"verdict": "maybe"}] * 2
    with ScriptedLLMServer(replies("openai", answers)) as srv:
        env = {**KEYS, "OPENAI_BASE_URL": srv.openai_base_url,
               "ML_DEBUG_BENCH_JUDGE_CACHE": str(out / "cache")}
        res = CliRunner().invoke(app, ["run", "--agent", "reference", "case_01", "--out", str(out),
                                       "--judge", "openai:fake-judge"], env=env)
        assert res.exit_code == 0, res.output
        n_requests = len(srv.requests)
    (run_dir,) = [p for p in out.iterdir() if p.is_dir() and p.name != "cache"]
    return run_dir, n_requests


@pytest.fixture
def judged_run(judged_run_template, tmp_path):
    src, _ = judged_run_template
    dst = tmp_path / src.name
    shutil.copytree(src, dst)
    return dst

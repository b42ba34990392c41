"""The run budget: the estimate before a run (from an earlier run or --max-cost), refusal over budget, and no new
sample once it is spent. The end-to-end run and resume is slow (three graded samples), so it runs only with
ML_DEBUG_BENCH_E2E=1 (docs/running.md)."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.core.errors import ConfigError
from harness.core.results import read_samples, read_state
from harness.models import CRITERIA_DETERMINISTIC, Verdict
from harness.running.budget import Budget, check_budget
from tests.builders.llm_helpers import REPORT
from tests.builders.run_fixtures import make_run
from tests.fakes.llm_server import Reply, ScriptedLLMServer, openai_chat


def test_no_estimate_is_refused_naming_both_sources():
    with pytest.raises(ConfigError, match="--estimate-from RUN .* --max-cost"):
        check_budget(1.0, 0.0, 10, None, None, False)


def test_estimate_over_the_budget_is_refused_unless_over_budget(tmp_path):
    earlier = make_run(tmp_path, "earlier", {"control": {"case_01": [("pass", "pass")] * 4}}, cost=0.25)
    with pytest.raises(ConfigError, match=r"estimated \$2.5000 for 10 sample\(s\).*over the budget.*--over-budget"):
        check_budget(2.0, 0.0, 10, str(earlier), None, False)
    assert "budget $2" in check_budget(2.0, 0.0, 10, str(earlier), None, True)
    assert "estimated $1.0000" in check_budget(2.0, 0.0, 10, None, 0.1, False)  # --max-cost × samples
    unpriced = make_run(tmp_path, "unpriced", {"control": {"case_01": [("pass", "pass")]}}, cost=None)
    with pytest.raises(ConfigError, match="no known cost"):
        check_budget(2.0, 0.0, 10, str(unpriced), None, False)


def test_the_budget_is_reached_by_spend_or_by_an_unknown_cost(tmp_path):
    samples = read_samples(make_run(tmp_path, "r", {"control": {"case_01": [("pass", "pass")] * 2}}, cost=0.5))
    budget = Budget(0.8)
    budget.add(samples[0])
    assert not budget.reached()
    budget.add(samples[1])
    assert budget.reached() and "$1.0000 spent" in budget.why()
    blind = Budget(100.0)
    blind.add(samples[0].model_copy(update={"usage": samples[0].usage.model_copy(update={"cost_usd": None})}))
    assert blind.reached()


@pytest.mark.skipif(not os.environ.get("ML_DEBUG_BENCH_E2E"), reason="slow end to end: ML_DEBUG_BENCH_E2E=1")
def test_run_stops_starting_samples_at_the_budget_and_resume_finishes(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    skipped = {c: Verdict(criterion=c, status="unscored", reason="skipped_in_test", grader="test")
               for c in CRITERIA_DETERMINISTIC}
    monkeypatch.setattr("harness.running.sample.grade_deterministic", lambda *a, **k: dict(skipped))
    prices = tmp_path / "prices.toml"
    prices.write_text('[models."fake-model"]\ninput = 10.0\noutput = 50.0\n')  # one call: $0.002
    with ScriptedLLMServer([Reply(openai_chat(tool_calls=[("submit_report", REPORT)]))] * 3) as srv:
        args = ["run", "--agent", "openai:fake-model", "--base-url", srv.openai_base_url, "--out",
                str(tmp_path / "out"), "--epochs", "3", "--sandbox", "none", "--max-parallel", "1",
                "--prices", str(prices), "--budget-usd", "0.003", "case_01"]
        refused = CliRunner().invoke(app, args)
        assert refused.exit_code == 2 and "--estimate-from" in refused.output and "--max-cost" in refused.output
        over = CliRunner().invoke(app, [*args, "--max-cost", "0.002"])
        assert over.exit_code == 2 and "over the budget" in over.output
        res = CliRunner().invoke(app, [*args, "--max-cost", "0.002", "--over-budget"])
        assert res.exit_code == 1 and "budget was spent" in res.output, res.output
        (run_dir,) = list((tmp_path / "out").iterdir())
        assert len(read_samples(run_dir)) == 2 and read_state(run_dir).status == "budget_reached"
        done = CliRunner().invoke(app, ["resume", str(run_dir), "--budget-usd", "1"])
    assert done.exit_code == 0, done.output
    assert len(read_samples(run_dir)) == 3 and read_state(run_dir).status == "finished"

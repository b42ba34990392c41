"""Cost accounting through the real SDKs against the loopback fakes: cache reads and writes priced at their own
rates, by hand; an unknown model is null with one warning per run (that run end to end only with
ML_DEBUG_BENCH_E2E=1: two graded samples); the judge's calls priced too."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from harness.agents.base import Limits
from harness.agents.llm import make_llm_agent
from harness.analysis.costs import arm_costs, judge_spend
from harness.cli import app
from harness.core.pricing import BUILTIN_PRICES, PRICES_TAKEN, Price, PriceTable
from harness.core.providers import Usage
from harness.core.results import read_samples
from harness.models import CRITERIA_DETERMINISTIC, Verdict
from tests.builders.llm_helpers import REPORT, agent_for, episode
from tests.builders.run_fixtures import make_run
from tests.fakes.llm_server import Reply, ScriptedLLMServer, anthropic_message, openai_chat

ANTHROPIC_PRICE = Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)  # $/Mtok
OPENAI_PRICE = Price(input=2.0, output=8.0, cache_read=0.5, cache_write=2.0)


def test_anthropic_cache_reads_and_writes_are_priced_at_their_own_rates(tmp_path):
    script = [Reply(anthropic_message("thinking aloud", input_tokens=200, output_tokens=50, cache_write=1000)),
              Reply(anthropic_message(tool_uses=[("submit_report", REPORT)], input_tokens=300, output_tokens=80,
                                      cache_read=1000, cache_write=400))]
    with ScriptedLLMServer(script) as srv:
        agent = agent_for(srv, "anthropic", prices=PriceTable({"fake-model": ANTHROPIC_PRICE}))
        outcome, events = episode(agent, tmp_path)
    usage = [e for e in events if e.kind == "usage"]
    # by hand: uncached input at $3, cache writes at $3.75, cache reads at $0.30, output at $15 per Mtok
    first = (200 * 3.0 + 1000 * 3.75 + 50 * 15.0) / 1e6
    second = (300 * 3.0 + 400 * 3.75 + 1000 * 0.3 + 80 * 15.0) / 1e6
    assert [(e.input_tokens, e.cache_read_tokens, e.cache_write_tokens, e.output_tokens) for e in usage] == [
        (1200, 0, 1000, 50), (1700, 1000, 400, 80)]
    assert [e.cost_usd for e in usage] == [pytest.approx(first), pytest.approx(second)]
    assert outcome.usage.cost_usd == pytest.approx(first + second)
    assert (outcome.usage.cache_read_tokens, outcome.usage.cache_write_tokens) == (1000, 1400)


def test_openai_cached_tokens_are_read_from_usage_and_priced(tmp_path):
    script = [Reply(openai_chat(tool_calls=[("submit_report", REPORT)], prompt_tokens=1500, completion_tokens=40,
                                cached_tokens=1024))]
    with ScriptedLLMServer(script) as srv:
        agent = agent_for(srv, "openai", prices=PriceTable({"fake-model": OPENAI_PRICE}))
        outcome, events = episode(agent, tmp_path)
    (usage,) = [e for e in events if e.kind == "usage"]
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (1500, 1024, 0)
    assert usage.cost_usd == pytest.approx((476 * 2.0 + 1024 * 0.5 + 40 * 8.0) / 1e6)
    assert outcome.usage.cost_usd == pytest.approx(usage.cost_usd)


def test_cache_tokens_without_a_cache_rate_are_unknown_not_guessed(tmp_path):
    script = [Reply(openai_chat(tool_calls=[("bash", {"command": "true"})], prompt_tokens=1500, cached_tokens=1000))]
    with ScriptedLLMServer(script) as srv:
        agent = agent_for(srv, "openai", prices=PriceTable({"fake-model": Price(input=2.0, output=8.0)}))
        outcome, events = episode(agent, tmp_path, limits=Limits(max_cost_usd=1.0))
    assert [e.cost_usd for e in events if e.kind == "usage"] == [None]
    assert outcome.usage.cost_usd is None
    assert outcome.status == "limit_reached" and "could not be priced" in outcome.error  # a budget never runs blind


def test_the_builtin_table_is_dated_and_has_cache_rates():
    assert PRICES_TAKEN and all(p.cache_read is not None and p.cache_write is not None for p in BUILTIN_PRICES.values())
    assert PriceTable().lookup("claude-sonnet-4-20250514").cache_read == pytest.approx(0.3)


def test_unknown_model_costs_null_never_a_guess(tmp_path):
    script = [Reply(openai_chat(tool_calls=[("submit_report", REPORT)], cached_tokens=50))]
    with ScriptedLLMServer(script) as srv:
        agent = make_llm_agent("openai:no-such-model", base_url=srv.openai_base_url, api_key="k", max_retries=0)
        outcome, events = episode(agent, tmp_path)
    assert agent.price is None and agent.settings["price_per_mtok"] is None
    assert [(e.cost_usd, e.cache_read_tokens) for e in events if e.kind == "usage"] == [(None, 50)]
    assert outcome.status == "completed" and outcome.usage.cost_usd is None


@pytest.mark.skipif(not os.environ.get("ML_DEBUG_BENCH_E2E"), reason="slow end to end: ML_DEBUG_BENCH_E2E=1")
def test_unknown_model_costs_null_with_one_warning_per_run(monkeypatch, tmp_path):
    """Two samples of a model the table does not know: cost null on each, the warning once."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    skipped = {c: Verdict(criterion=c, status="unscored", reason="skipped_in_test", grader="test")
               for c in CRITERIA_DETERMINISTIC}
    monkeypatch.setattr("harness.running.sample.grade_deterministic", lambda *a, **k: dict(skipped))
    script = [Reply(openai_chat(tool_calls=[("submit_report", REPORT)], cached_tokens=50))] * 2
    with ScriptedLLMServer(script) as srv:
        res = CliRunner().invoke(app, ["run", "--agent", "openai:no-such-model", "--base-url", srv.openai_base_url,
                                       "--out", str(tmp_path / "out"), "--epochs", "2", "--sandbox", "none",
                                       "--max-parallel", "1", "case_01"])
    assert res.exit_code == 0, res.output
    assert res.output.count("no price for agent model 'no-such-model'") == 1
    (run_dir,) = list((tmp_path / "out").iterdir())
    samples = read_samples(run_dir)
    assert len(samples) == 2 and all(s.usage.cost_usd is None and s.usage.cache_read_tokens == 50 for s in samples)
    (arm,) = arm_costs(samples)
    assert arm.agent_usd is None and arm.per_sample is None  # unknown, never summed as zero


def test_judge_calls_are_priced_and_cache_hits_cost_nothing(monkeypatch, tmp_path):
    from judges.llm import Judge, JudgeSettings

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    judge = Judge("openai:gpt-4o-mini", JudgeSettings(base_url="http://127.0.0.1:9/v1"),
                  prices=PriceTable({"gpt-4o-mini": Price(input=0.15, output=0.6, cache_read=0.075, cache_write=0.15)}))
    run = {"input_tokens": 0, "output_tokens": 0, "attempts": 1, "status": "pass"}
    judge._count(run, Usage(4000, 300, 2048, 0))
    expected = (1952 * 0.15 + 2048 * 0.075 + 300 * 0.6) / 1e6
    assert run["cost_usd"] == pytest.approx(expected) and run["cache_read_tokens"] == 2048
    unpriced = Judge("openai:no-such-judge", JudgeSettings(base_url="http://127.0.0.1:9/v1"))
    assert unpriced.price is None
    sample = read_samples(make_run(tmp_path, "r", {"control": {"case_01": [("pass", "pass")]}}))[0]
    sample.verdicts["root_cause"] = Verdict(criterion="root_cause", status="pass", grader="llm",
                                            details={"runs": [run, {**run, "cached": True}]})
    assert judge_spend(sample).cost_usd == pytest.approx(expected) and judge_spend(sample).calls == 1

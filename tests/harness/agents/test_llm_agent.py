"""The LLM agent loop against loopback servers speaking the real wire formats, via the real SDKs."""

from __future__ import annotations

import json
import time

import pytest

from harness.agents.base import Limits
from harness.agents.llm import NUDGE, full_requests, make_llm_agent, usage_from_events
from harness.agents.pricing import Price, PriceTable
from harness.core.errors import ConfigError, InfraError
from harness.core.transcript import read_transcript
from tests.builders.llm_helpers import PROVIDERS, REPORT, agent_for, episode, kinds, turn
from tests.fakes.llm_server import (
    Reply,
    ScriptedLLMServer,
    anthropic_error,
    anthropic_message,
    openai_chat,
    openai_error,
)

SUBMIT = ("submit_report", REPORT)


def error_reply(provider: str, status: int, message: str = "boom", retry_after_ms: float | None = None):
    make = openai_error if provider == "openai" else anthropic_error
    return make(status, message, retry_after_ms=retry_after_ms)


def tool_messages(provider: str, body: dict) -> list[str]:
    """The tool results the model was sent in one request, as text."""
    if provider == "openai":
        return [m["content"] for m in body["messages"] if m["role"] == "tool"]
    return [b["content"] for m in body["messages"] if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b["type"] == "tool_result"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_loop_records_every_pair_and_feeds_results_back(provider, tmp_path):
    with ScriptedLLMServer([turn(provider, "look", [("bash", {"command": "echo hello; echo oops >&2; exit 3"})]),
                            turn(provider, calls=[SUBMIT], tokens=(150, 30))]) as srv:
        outcome, events = episode(agent_for(srv, provider), tmp_path)
    assert outcome.status == "completed" and outcome.report.location == "model.py:19"
    assert kinds(events) == ["message", "message", "model_call", "usage", "message", "tool_call", "tool_result",
                             "model_call", "usage", "tool_call", "report"]
    result = events[6]
    assert (result.stdout, result.stderr.strip(), result.exit_code) == ("hello\n", "oops", 3)
    sent = tool_messages(provider, srv.requests[1].body)
    assert len(sent) == 1 and "exit code: 3" in sent[0] and "hello" in sent[0] and "oops" in sent[0]
    # The transcript holds every request exactly as the server received it, and every response.
    assert full_requests(events) == [r.body for r in srv.requests]
    assert all(e.response for e in events if e.kind == "model_call")
    usage = [e for e in events if e.kind == "usage"]
    assert [(u.input_tokens, u.output_tokens, u.cost_usd) for u in usage] == [(100, 20, None), (150, 30, None)]
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens, outcome.usage.cost_usd) == (250, 50, None)
    # The transcript on disk is the same, event for event.
    assert [e.model_dump() for e in read_transcript(tmp_path / "transcript.jsonl")] == [e.model_dump() for e in events]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rate_limit_then_success_is_retried_by_the_sdk(provider, tmp_path):
    with ScriptedLLMServer([error_reply(provider, 429, "slow down", retry_after_ms=10),
                            turn(provider, calls=[SUBMIT])]) as srv:
        outcome, events = episode(agent_for(srv, provider), tmp_path)
    assert outcome.status == "completed"
    assert len(srv.requests) == 2
    assert [e.error for e in events if e.kind == "model_call"] == [None]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_error_storm_exhausts_retries_as_an_outage(provider, tmp_path):
    """A 5xx past the retries is the provider's failure: InfraError (the runner's infra_error), not the model's."""
    storm = [error_reply(provider, 500, "down", retry_after_ms=5) for _ in range(10)]
    with ScriptedLLMServer(storm) as srv:
        t0 = time.monotonic()
        with pytest.raises(InfraError, match="provider outage.*500"):
            episode(agent_for(srv, provider, max_retries=3), tmp_path)
        elapsed = time.monotonic() - t0
    assert len(srv.requests) == 4  # one try plus max_retries
    assert elapsed < 10
    events = read_transcript(tmp_path / "transcript.jsonl")
    calls = [e for e in events if e.kind == "model_call"]
    assert len(calls) == 1 and calls[0].response is None and "500" in calls[0].error


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [429, 503])
def test_rate_limits_and_unavailable_are_outages(provider, status, tmp_path):
    with ScriptedLLMServer([error_reply(provider, status, "busy", retry_after_ms=5) for _ in range(3)]) as srv:
        with pytest.raises(InfraError, match=str(status)):
            episode(agent_for(srv, provider, max_retries=2), tmp_path)
    assert len(srv.requests) == 3


@pytest.mark.parametrize("provider", PROVIDERS)
def test_bad_request_is_the_agents_error_not_an_outage(provider, tmp_path):
    """A 400 (e.g. a context too long) is not retried and not the provider's outage: agent_error."""
    with ScriptedLLMServer([error_reply(provider, 400, "prompt is too long")]) as srv:
        outcome, _ = episode(agent_for(srv, provider, max_retries=2), tmp_path)
    assert outcome.status == "agent_error" and "400" in outcome.error
    assert len(srv.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [401, 403])
def test_auth_error_stops_at_once(provider, status, tmp_path):
    with ScriptedLLMServer([error_reply(provider, status, "invalid x-api-key")]) as srv:
        with pytest.raises(ConfigError, match="refused the key"):
            episode(agent_for(srv, provider), tmp_path)
    assert len(srv.requests) == 1  # never retried
    events = read_transcript(tmp_path / "transcript.jsonl")
    assert events[-1].kind == "model_call" and str(status) in events[-1].error


@pytest.mark.parametrize("provider", PROVIDERS)
def test_missing_key_is_a_clear_config_error(provider):
    env_var = "OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY"
    with pytest.raises(ConfigError, match=env_var):
        make_llm_agent(f"{provider}:some-model", environ={})


def test_openai_malformed_tool_arguments_become_tool_errors(tmp_path):
    with ScriptedLLMServer([turn("openai", calls=[("bash", '{"command": "ls"'),  # truncated JSON
                                                  ("submit_report", {"cause": "x"}),  # wrong fields
                                                  ("launch_rockets", {})]),  # unknown tool
                            turn("openai", calls=[SUBMIT])]) as srv:
        outcome, events = episode(agent_for(srv, "openai"), tmp_path)
    assert outcome.status == "completed" and outcome.tool_errors == 3
    calls = [e for e in events if e.kind == "tool_call"]
    assert calls[0].arguments == {"_raw": '{"command": "ls"'}
    errors = [e.error for e in events if e.kind == "tool_result"]
    assert "not valid JSON" in errors[0]
    assert "root_cause" in errors[1] and "cause" in errors[1]
    assert "unknown tool 'launch_rockets'" in errors[2]
    sent = tool_messages("openai", srv.requests[1].body)
    assert len(sent) == 3 and all(s.startswith("error: ") for s in sent)


def test_anthropic_wrong_tool_fields_are_flagged_is_error(tmp_path):
    with ScriptedLLMServer([turn("anthropic", calls=[("bash", {"cmd": "ls"})]),
                            turn("anthropic", calls=[SUBMIT])]) as srv:
        outcome, events = episode(agent_for(srv, "anthropic"), tmp_path)
    assert outcome.status == "completed" and outcome.tool_errors == 1
    blocks = [b for m in srv.requests[1].body["messages"] if isinstance(m["content"], list)
              for b in m["content"] if b.get("type") == "tool_result"]
    assert blocks[0]["is_error"] is True and "command" in blocks[0]["content"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_reply_without_tool_call_gets_a_nudge(provider, tmp_path):
    with ScriptedLLMServer([turn(provider, "I think it is the learning rate."),
                            turn(provider, calls=[SUBMIT])]) as srv:
        outcome, events = episode(agent_for(srv, provider), tmp_path)
    assert outcome.status == "completed"
    assert [e.content for e in events if e.kind == "message"][-1] == NUDGE
    last = srv.requests[1].body["messages"][-1]
    if provider == "openai":
        assert last == {"role": "user", "content": NUDGE}
    else:  # the latest turn carries a prompt-cache breakpoint, so it is sent as a text block
        assert last == {"role": "user", "content": [{"type": "text", "text": NUDGE,
                                                      "cache_control": {"type": "ephemeral"}}]}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_step_limit(provider, tmp_path):
    script = [turn(provider, calls=[("bash", {"command": f"echo {i}"})]) for i in range(5)]
    with ScriptedLLMServer(script) as srv:
        outcome, events = episode(agent_for(srv, provider), tmp_path, limits=Limits(max_steps=2))
    assert outcome.status == "limit_reached" and "max_steps" in outcome.error
    assert len(srv.requests) == 2
    assert events[-1].kind == "error" and events[-1].error_type == "limit_reached"
    assert sum(e.kind == "tool_result" for e in events) == 2  # the last step's tools still ran


@pytest.mark.parametrize("provider", PROVIDERS)
def test_token_limit(provider, tmp_path):
    script = [turn(provider, calls=[("bash", {"command": "true"})], tokens=(100, 20)) for _ in range(5)]
    with ScriptedLLMServer(script) as srv:
        outcome, _ = episode(agent_for(srv, provider), tmp_path, limits=Limits(max_tokens=250))
    assert outcome.status == "limit_reached" and "max_tokens" in outcome.error
    assert len(srv.requests) == 3 and outcome.usage.input_tokens + outcome.usage.output_tokens == 360


def test_cost_is_priced_and_budgeted(tmp_path):
    prices = PriceTable({"fake-model": Price(input=10.0, output=50.0)})  # $/Mtok
    script = [turn("openai", calls=[("bash", {"command": "true"})], tokens=(1000, 100)) for _ in range(5)]
    with ScriptedLLMServer(script) as srv:
        agent = agent_for(srv, "openai", prices=prices)
        outcome, events = episode(agent, tmp_path, limits=Limits(max_cost_usd=0.04))
    per_call = (1000 * 10 + 100 * 50) / 1e6  # $0.015
    assert [e.cost_usd for e in events if e.kind == "usage"] == [per_call] * 3
    assert outcome.status == "limit_reached" and "max_cost" in outcome.error
    assert outcome.usage.cost_usd == pytest.approx(3 * per_call)
    assert agent.settings["price_per_mtok"] == {"input": 10.0, "output": 50.0}


def test_cost_budget_without_a_price_is_refused_up_front():
    agent = make_llm_agent("openai:unpriced-model", api_key="k", base_url="http://127.0.0.1:9/v1")
    assert agent.price is None
    with pytest.raises(ConfigError, match="no price"):
        agent.check_limits(Limits(max_cost_usd=1.0))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_wall_limit(provider, tmp_path):
    with ScriptedLLMServer([turn(provider, calls=[("bash", {"command": "true"})], delay_s=0.4)] * 3) as srv:
        outcome, _ = episode(agent_for(srv, provider), tmp_path, limits=Limits(max_wall_seconds=0.3))
    assert outcome.status == "limit_reached" and "max_wall" in outcome.error
    assert len(srv.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_model_settings_are_sent_and_recorded(provider, tmp_path):
    with ScriptedLLMServer([turn(provider, calls=[SUBMIT])]) as srv:
        agent = agent_for(srv, provider, temperature=0.2, max_tokens_per_call=1234, reasoning_effort="high")
        episode(agent, tmp_path)
    body = srv.requests[0].body
    assert body["temperature"] == 0.2
    if provider == "openai":
        assert (body["max_completion_tokens"], body["reasoning_effort"]) == (1234, "high")
        assert body["messages"][0] == {"role": "system", "content": "system prompt"}
    else:
        assert (body["max_tokens"], body["output_config"]) == (1234, {"effort": "high"})
        assert body["system"] == [{"type": "text", "text": "system prompt", "cache_control": {"type": "ephemeral"}}]
    assert {t["function"]["name"] if provider == "openai" else t["name"] for t in body["tools"]} == \
        {"bash", "edit_file", "submit_report"}
    json.dumps(agent.settings)  # it goes into the manifest
    assert (agent.settings["temperature"], agent.settings["max_tokens_per_call"],
            agent.settings["reasoning_effort"]) == (0.2, 1234, "high")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_huge_replies_are_capped_and_stored_without_repeats(provider, tmp_path):
    """A 10 MB reply, three times: the transcript stays small, the cut reply's tool call is refused,
    and every request can still be rebuilt exactly as sent."""
    big = "x" * 10_000_000
    script = [turn(provider, big, [("bash", {"command": "echo " + big})]) for _ in range(3)]
    with ScriptedLLMServer(script + [turn(provider, calls=[SUBMIT])]) as srv:
        outcome, events = episode(agent_for(srv, provider), tmp_path)
        requests = [r.body for r in srv.requests]
    assert outcome.status == "completed"
    size = (tmp_path / "transcript.jsonl").stat().st_size
    assert size < 5_000_000, size  # 3 x 10 MB replies, each once and cut to 256 KB per string
    results = [e for e in events if e.kind == "tool_result"]
    assert len(results) == 3 and all("longer than the harness accepts" in r.error for r in results)
    assert not any(e.kind == "tool_result" and e.stdout for e in events)  # nothing ran
    assert full_requests(events) == requests
    later = [e.request for e in events if e.kind == "model_call"][1:]
    assert all(any("$assistant_turn_of" in m for m in r["messages"]) for r in later)


def unusable_reply(provider: str) -> Reply:
    """A reply that came back (and reports its tokens) but cannot be used."""
    if provider == "openai":
        body = openai_chat("thinking")
        body["choices"] = []  # some OpenAI-compatible servers answer a filtered request like this
    else:
        body = anthropic_message(tool_uses=[("bash", {"command": "ls"})])
        del body["content"][0]["id"]
    return Reply(body)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_tokens_of_an_unusable_reply_are_counted(provider, tmp_path):
    with ScriptedLLMServer([turn(provider, calls=[("bash", {"command": "echo hi"})]), unusable_reply(provider)]) as srv:
        outcome, events = episode(agent_for(srv, provider, max_retries=0), tmp_path)
    assert outcome.status == "agent_error" and "malformed" in outcome.error
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (200, 40)
    assert [(u.input_tokens, u.output_tokens) for u in events if u.kind == "usage"] == [(100, 20), (100, 20)]
    assert usage_from_events(events) == outcome.usage

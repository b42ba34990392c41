"""Prompt caching in the built-in agent over a scripted 30-step episode, through the real SDKs: OpenAI's
requests extend each other byte for byte (its cache is a prefix cache); every Anthropic request carries at
most 4 cache breakpoints (the fake refuses more, as the API does), on the system prompt and the latest turns."""

from __future__ import annotations

import json

import pytest

from harness.agents.llm import full_requests
from tests.builders.llm_helpers import PROVIDERS, REPORT, agent_for, episode, turn
from tests.fakes.llm_server import ScriptedLLMServer, cache_breakpoints

STEPS = 30


def script(provider: str):
    """29 cheap steps (a reply without a tool call, then a failing edit: no command runs), then the report."""
    steps = [turn(provider, f"thinking {i}") if i % 2 == 0 else
             turn(provider, calls=[("edit_file", {"path": "missing.py", "old_text": "a", "new_text": "b"})])
             for i in range(STEPS - 1)]
    return steps + [turn(provider, calls=[("submit_report", REPORT)])]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_thirty_steps_keep_a_cacheable_prefix(provider, tmp_path):
    with ScriptedLLMServer(script(provider)) as srv:
        outcome, events = episode(agent_for(srv, provider), tmp_path)
        bodies = [r.body for r in srv.requests]
    assert outcome.status == "completed" and len(bodies) == STEPS
    assert full_requests(events) == bodies  # the transcript still rebuilds every request exactly
    if provider == "openai":
        for before, after in zip(bodies, bodies[1:]):
            prefix = [json.dumps(m, sort_keys=False) for m in before["messages"]]
            assert [json.dumps(m, sort_keys=False) for m in after["messages"][:len(prefix)]] == prefix
            assert len(after["messages"]) > len(prefix)
            assert {k: v for k, v in before.items() if k != "messages"} == \
                   {k: v for k, v in after.items() if k != "messages"}
    else:
        for body in bodies:
            assert 2 <= cache_breakpoints(body) <= 4
            assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
            assert "cache_control" in body["messages"][-1]["content"][-1]  # the latest turn
        # the history itself never keeps a marker: only the last two user turns of each request carry one
        last = bodies[-1]["messages"]
        marked = [i for i, m in enumerate(last) if cache_breakpoints(m)]
        users = [i for i, m in enumerate(last) if m["role"] == "user"]
        assert marked == users[-2:]


def test_the_anthropic_fake_refuses_more_than_four_breakpoints():
    import anthropic

    with ScriptedLLMServer([]) as srv:
        client = anthropic.Anthropic(api_key="k", base_url=srv.anthropic_base_url, max_retries=0)
        block = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
        with pytest.raises(anthropic.BadRequestError, match="maximum of 4"):
            client.messages.create(model="m", max_tokens=10, system=[block, block],
                                   messages=[{"role": "user", "content": [block, block, block]}])

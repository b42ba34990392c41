"""Shared helpers for the LLM agent tests: scripted turns for either provider, and one episode
run directly (no grading) so loop behaviour can be tested in milliseconds."""

from __future__ import annotations

from pathlib import Path

from harness.agents.base import AgentTask, Limits, Toolbox
from harness.agents.llm import make_llm_agent
from harness.core.cases import find_root
from harness.core.transcript import TranscriptWriter
from harness.isolation.sandbox import PlainSandbox
from harness.workspaces.workspace import create_workspace, remove_workspace
from tests.fakes.llm_server import Reply, anthropic_message, openai_chat

ROOT = find_root(Path(__file__).resolve().parent)
CASE01 = ROOT / "cases" / "case_01"
PROVIDERS = ("openai", "anthropic")


def turn(provider: str, text: str | None = None, calls=(), tokens: tuple[int, int] = (100, 20),
         delay_s: float = 0.0) -> Reply:
    """One scripted model reply: optional text plus tool calls [(name, args)]."""
    if provider == "openai":
        body = openai_chat(text, list(calls), prompt_tokens=tokens[0], completion_tokens=tokens[1])
    else:
        body = anthropic_message(text, list(calls), input_tokens=tokens[0], output_tokens=tokens[1])
    return Reply(body, delay_s=delay_s)


def base_url(srv, provider: str) -> str:
    return srv.openai_base_url if provider == "openai" else srv.anthropic_base_url


def agent_for(srv, provider: str, **options):
    options.setdefault("max_retries", 2)
    return make_llm_agent(f"{provider}:fake-model", base_url=base_url(srv, provider), api_key="test-key", **options)


REPORT = {"root_cause": "The model returns softmax probabilities and CrossEntropyLoss applies log_softmax again.",
          "location": "model.py:19", "fix": "return the raw logits", "evidence": "loss stays at ln(10)"}


def episode(agent, tmp_path: Path, limits: Limits = Limits(), system: str = "system prompt",
            prompt: str = "task prompt", sandbox=None):
    """Run one sample's agent loop on a fresh case_01 workspace; returns (outcome, events)."""
    ws = create_workspace(CASE01)
    try:
        with TranscriptWriter(tmp_path / "transcript.jsonl") as tr:
            tr.append("message", role="system", content=system)
            tr.append("message", role="user", content=prompt)
            task = AgentTask(case_id="case_01", workspace=ws, system_prompt=system, prompt=prompt, limits=limits,
                             transcript=tr, tools=Toolbox(ws, tr, sandbox or PlainSandbox(), limits))
            outcome = agent.run(task)
        return outcome, list(tr.events)
    finally:
        remove_workspace(ws)


def kinds(events) -> list[str]:
    return [e.kind for e in events]

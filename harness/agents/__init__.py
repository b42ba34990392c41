"""Agent adapters, chosen by a spec string such as ``reference``, ``null`` or ``openai:MODEL``."""

from __future__ import annotations

from pathlib import Path

from harness.errors import ConfigError


def make_agent(spec: str, root: Path, **options):
    """Build the agent named by ``spec``. ``options`` configure the LLM agents (see make_llm_agent)
    and are ignored by the others."""
    if spec == "reference":
        from harness.agents.reference import ReferenceAgent
        return ReferenceAgent(root)
    if spec == "null":
        from harness.agents.null import NullAgent
        return NullAgent()
    if spec.split(":", 1)[0] in ("openai", "anthropic"):
        from harness.agents.llm import make_llm_agent
        return make_llm_agent(spec, **options)
    raise ConfigError(f"unknown agent '{spec}' (known: reference, null, openai:MODEL, anthropic:MODEL)")

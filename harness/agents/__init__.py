"""Agent adapters, chosen by a spec string such as ``reference``, ``openai:MODEL`` or ``claude-code``."""

from __future__ import annotations

from pathlib import Path

from harness.errors import ConfigError

KNOWN = ("reference, null, grep, openai:MODEL, anthropic:MODEL, claude-code[:MODEL], codex[:MODEL], "
         "mini-swe-agent:MODEL, cmd:'TEMPLATE', replay:RUN_DIR")


def make_agent(spec: str, root: Path, **options):
    """Build the agent named by ``spec``. ``options`` configure the LLM agents (see make_llm_agent)
    and are ignored by the others."""
    if spec == "reference":
        from harness.agents.reference import ReferenceAgent
        return ReferenceAgent(root)
    if spec == "null":
        from harness.agents.null import NullAgent
        return NullAgent()
    if spec == "grep":
        from harness.agents.grep import GrepAgent
        return GrepAgent()
    kind, _, rest = spec.partition(":")
    if kind in ("openai", "anthropic"):
        from harness.agents.llm import make_llm_agent
        return make_llm_agent(spec, **options)
    if kind == "claude-code":
        from harness.agents.claude_code import ClaudeCodeAgent
        return ClaudeCodeAgent(rest or None, base_url=options.get("base_url"))
    if kind == "codex":
        from harness.agents.codex import CodexAgent
        return CodexAgent(rest or None, base_url=options.get("base_url"),
                          reasoning_effort=options.get("reasoning_effort"))
    if kind == "mini-swe-agent":
        from harness.agents.mini_swe import MiniSweAgent
        return MiniSweAgent(rest, base_url=options.get("base_url"))
    if kind == "cmd":
        from harness.agents.command import CommandAgent
        return CommandAgent(rest, base_url=options.get("base_url"))
    if kind == "replay":
        from harness.agents.replay import ReplayAgent
        return ReplayAgent(Path(rest))
    raise ConfigError(f"unknown agent '{spec}' (known: {KNOWN})")

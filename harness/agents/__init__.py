"""Agent adapters, chosen by a spec string such as ``reference``, ``null`` or ``openai:MODEL``."""

from __future__ import annotations

from pathlib import Path

from harness.errors import ConfigError


def make_agent(spec: str, root: Path, **options):
    """Build the agent named by ``spec``."""
    if spec == "reference":
        from harness.agents.reference import ReferenceAgent
        return ReferenceAgent(root)
    if spec == "null":
        from harness.agents.null import NullAgent
        return NullAgent()
    raise ConfigError(f"unknown agent '{spec}' (known: reference, null)")

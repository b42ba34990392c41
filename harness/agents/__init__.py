"""Agent adapters, chosen by a spec string such as ``reference``, ``openai:MODEL`` or ``claude-code``.

``AGENTS`` maps the name before the first ``:`` to the module that implements it; the module is imported
only when that agent is made, so listing the agents (``--help``) imports none of them. Each module has
``create(spec, root, **options)``: ``spec`` is the whole spec (what follows the ``:`` is the module's to read),
``root`` the project root the run reads, ``options`` the model settings of ``harness.api.agent_options``
(an agent ignores those it has no use for). It returns an object of the ``Agent`` protocol (``harness.agents.base``).

A spec whose name is a dotted module path (``mypkg.my_agent[:ARG]``) imports that module the same way, so an
agent outside this package needs no registration at all.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import ConfigError


@dataclass(frozen=True)
class AgentEntry:
    module: str  # the module whose create() builds the agent
    usage: str  # how the spec is written, for the help and errors ("NAME", "NAME:ARG" or "NAME[:ARG]")
    local: bool = False  # no model behind it: its work is all CPU, so runs take one sample at a time by default


AGENTS: dict[str, AgentEntry] = {
    "reference": AgentEntry("harness.agents.reference", "reference", local=True),
    "null": AgentEntry("harness.agents.null", "null", local=True),
    "grep": AgentEntry("harness.agents.grep", "grep", local=True),
    "openai": AgentEntry("harness.agents.llm", "openai:MODEL"),
    "anthropic": AgentEntry("harness.agents.llm", "anthropic:MODEL"),
    "claude-code": AgentEntry("harness.agents.claude_code", "claude-code[:MODEL]"),
    "codex": AgentEntry("harness.agents.codex", "codex[:MODEL]"),
    "mini-swe-agent": AgentEntry("harness.agents.mini_swe", "mini-swe-agent:MODEL"),
    "cmd": AgentEntry("harness.agents.command", "cmd:'TEMPLATE'"),
    "replay": AgentEntry("harness.agents.replay", "replay:RUN_DIR", local=True),
}

KNOWN = ", ".join(e.usage for e in AGENTS.values())


def agent_module(spec: str) -> str:
    """The module that builds the agent ``spec`` names (a registered name or a dotted module path)."""
    name, colon, _ = spec.partition(":")
    entry = AGENTS.get(name)
    if entry is not None and not (colon and ":" not in entry.usage):
        return entry.module
    if entry is None and "." in name and all(part.isidentifier() for part in name.split(".")):
        return name
    raise ConfigError(f"unknown agent '{spec}' (known: {KNOWN}; or a module path, package.module[:ARG])")


def is_local(spec: str) -> bool:
    """Whether ``spec`` names an agent without a model behind it (see ``AgentEntry.local``)."""
    entry = AGENTS.get(spec.partition(":")[0])
    return entry is not None and entry.local


def make_agent(spec: str, root: Path, **options):
    """Build the agent named by ``spec``. ``options`` configure the model-backed agents (see make_llm_agent)
    and are ignored by the others."""
    module_name = agent_module(spec)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if spec.partition(":")[0] in AGENTS:
            raise
        raise ConfigError(f"agent '{spec}': cannot import {module_name}: {exc}") from None
    create = getattr(module, "create", None)
    if create is None:
        raise ConfigError(f"agent '{spec}': module {module_name} has no create(spec, root, **options)")
    return create(spec, root, **options)

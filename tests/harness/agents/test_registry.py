"""The agent registry: names map to modules imported only when used, a dotted module path works too, and
every agent keeps the whole protocol (check_limits included)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from harness.agents import AGENTS, KNOWN, agent_module, is_local, make_agent
from harness.agents.base import Agent, Limits
from harness.core.errors import ConfigError
from tests.builders.llm_helpers import ROOT


def test_every_registered_module_has_a_factory_and_its_agents_the_protocol():
    for name, entry in AGENTS.items():
        module = importlib.import_module(entry.module)
        assert callable(getattr(module, "create", None)), name
    for name in ("reference", "null", "grep"):
        agent = make_agent(name, ROOT)
        assert agent.name == name and all(callable(getattr(agent, m)) for m in ("run", "check_limits"))
        agent.check_limits(Limits())
    assert {"run", "check_limits"} <= set(vars(Agent))  # the protocol names both


def test_names_options_and_local_agents_come_from_the_registry():
    assert KNOWN.startswith("reference, null, grep, openai:MODEL")
    assert [n for n in AGENTS if is_local(n)] == ["reference", "null", "grep", "replay"]
    assert is_local("replay:results/x") and not is_local("openai:gpt-4o") and not is_local("my.agent")
    assert agent_module("codex:m") == "harness.agents.codex" and agent_module("codex") == "harness.agents.codex"
    for spec in ("gemini:x", "reference:extra", "not a module"):
        with pytest.raises(ConfigError, match="unknown agent"):
            agent_module(spec)


def test_a_dotted_module_path_is_an_agent(tmp_path, monkeypatch):
    (tmp_path / "outside_pkg").mkdir()
    (tmp_path / "outside_pkg" / "__init__.py").write_text("")
    (tmp_path / "outside_pkg" / "my_agent.py").write_text(
        "class Mine:\n"
        "    settings = {}\n"
        "    def __init__(self, arg): self.name = f'mine:{arg}'\n"
        "    def check_limits(self, limits): pass\n"
        "    def run(self, task): raise NotImplementedError\n"
        "def create(spec, root, **options):\n"
        "    return Mine(spec.partition(':')[2])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert make_agent("outside_pkg.my_agent:x", ROOT, base_url="ignored").name == "mine:x"
    with pytest.raises(ConfigError, match="cannot import"):
        make_agent("outside_pkg.absent", ROOT)


def test_the_run_help_lists_every_registered_agent_without_importing_any():
    code = ("import sys; from harness.cli.run import AGENT_HELP; "
            "print(AGENT_HELP); print(sorted(m for m in sys.modules if m.startswith('harness.agents.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    help_line, loaded = out.splitlines()
    assert all(e.usage in help_line for e in AGENTS.values()) and "package.module[:ARG]" in help_line
    assert loaded == "[]"

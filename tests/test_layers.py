"""The layers of docs/design.md, read from the source: no import runs upward and no import cycle exists.

Every import counts, at module level or inside a function (a lazy import is still a dependency). The layers,
bottom first: ``harness.core`` (with ``harness.models`` and ``harness/__init__``), then ``judges`` and
``harness.isolation`` side by side, ``harness.workspaces``, ``harness.agents``, ``harness.running``,
``harness.analysis``, ``harness.validation`` (with ``harness.keydoc``), ``harness.engines`` (other engines: Harbor,
Inspect AI) and the library ``harness.api`` side by side, and the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BELOW_RUNNING = {"core", "judges", "isolation", "workspaces", "agents"}
# layer -> the layers it may import (itself included)
ALLOWED = {
    "core": {"core"},
    "judges": {"core", "judges"},
    "isolation": {"core", "isolation"},
    "workspaces": {"core", "isolation", "workspaces"},
    "agents": {"core", "isolation", "workspaces", "agents"},
    "running": BELOW_RUNNING | {"running"},
    "analysis": BELOW_RUNNING | {"running", "analysis"},
    "validation": BELOW_RUNNING | {"running", "analysis", "validation"},
    "engines": BELOW_RUNNING | {"running", "analysis", "validation", "engines"},
    "api": BELOW_RUNNING | {"running", "analysis", "validation", "api"},
    "cli": BELOW_RUNNING | {"running", "analysis", "validation", "api", "engines", "cli"},
}


def layer_of(module: str) -> str | None:
    """The layer of a project module (None: not the project's, e.g. a third-party package)."""
    parts = module.split(".")
    if parts[0] == "judges":
        return "judges"
    if parts[0] != "harness":
        return None
    if len(parts) == 1 or parts[1] == "models":
        return "core"
    if parts[1] == "keydoc":
        return "validation"
    return parts[1] if parts[1] in ALLOWED else "unknown"


def project_modules() -> dict[str, Path]:
    out = {}
    for package in ("harness", "judges"):
        for path in (ROOT / package).rglob("*.py"):
            out[".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")] = path
    return out


def imports_of(source: str, modules) -> set[str]:
    """The project modules ``source`` imports (``from pkg import mod`` means ``pkg.mod`` when that is a module)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return {m for m in found if layer_of(m) is not None}


def upward(module: str, source: str, modules) -> list[str]:
    """The imports of ``module`` that its layer may not make."""
    mine = layer_of(module)
    return sorted(f"{module} ({mine}) imports {m} ({layer_of(m)})" for m in imports_of(source, modules)
                  if layer_of(m) not in ALLOWED.get(mine, set()))


def test_every_module_has_a_layer():
    assert [m for m in project_modules() if layer_of(m) == "unknown"] == []


def test_no_import_runs_upward():
    modules = project_modules()
    problems = [p for m, path in modules.items() for p in upward(m, path.read_text(), modules)]
    assert problems == []


def test_the_check_sees_an_upward_import():
    """What the test above would say if judges imported the runner or the core imported an agent."""
    modules = project_modules()
    assert upward("judges.llm", "from harness.running.runner import run\n", modules)
    assert upward("harness.core.cases", "def f():\n    import harness.agents.grep\n", modules)
    assert upward("harness.isolation.sandbox", "from judges import grading\n", modules)
    assert not upward("harness.running.runner", "from judges.grading import grade_deterministic\n", modules)
    assert upward("harness.validation.validate", "from harness.engines import harbor_export\n", modules)
    assert upward("harness.engines.harbor_export", "from harness.cli import common\n", modules)
    assert not upward("harness.cli.export", "from harness.engines.harbor_export import export_cases\n", modules)


def test_no_import_cycle():
    modules = project_modules()
    graph = {m: {i for i in imports_of(p.read_text(), modules) if i in modules and i != m} for m, p in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert cycles == []


def test_no_module_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in project_modules().values()
            if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}

"""Inspect AI's name for ml-debug-bench: ``inspect eval ml_debug_bench/ml_debug_bench`` (the entry point in
pyproject.toml loads this module). Inspect names a task after the installed top-level package whose module
defines it (``inspect_ai._util.package.get_installed_package_name``: the module's first dotted part, looked
up as a distribution). The project's top level holds only its own folders (``harness``, ``judges``, ...), and
no distribution is called ``harness``; so the task is declared in a module object named ``ml_debug_bench`` (the
import name of the ``ml-debug-bench`` distribution) made here, whose spec points at this file. Everything the task
does is ``harness.engines.inspect_task`` (needs the ``[inspect]`` extra)."""

import importlib.machinery
import sys
import types

from inspect_ai import Task, task

from harness.engines.inspect_task import build_task

INSPECT_PACKAGE = "ml_debug_bench"
_package = sys.modules.get(INSPECT_PACKAGE)
if _package is None:
    _package = types.ModuleType(INSPECT_PACKAGE, "ml-debug-bench's Inspect AI task (harness.engines.inspect_registry)")
    _package.__spec__ = importlib.machinery.ModuleSpec(INSPECT_PACKAGE, None, origin=__file__)
    sys.modules[INSPECT_PACKAGE] = _package


def ml_debug_bench(tier: str = "standard", cases: str | list[str] = "", sandbox: str = "local", skill: str = "",
                   max_turns: int = 50, command_timeout: int = 300, verify: bool = True,
                   verify_sandbox: str = "auto", judge_repeats: int = 1) -> Task:
    """ml-debug-bench's cases as an Inspect task (the arguments: harness.engines.inspect_task.build_task)."""
    return build_task(tier=tier, cases=cases, sandbox=sandbox, skill=skill, max_turns=max_turns,
                      command_timeout=command_timeout, verify=verify, verify_sandbox=verify_sandbox,
                      judge_repeats=judge_repeats)


ml_debug_bench.__module__ = INSPECT_PACKAGE
ml_debug_bench = task(ml_debug_bench)
_package.ml_debug_bench = ml_debug_bench

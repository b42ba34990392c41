"""Inspect AI's name for ml-debug-bench: ``inspect eval ml_debug_bench/ml_debug_bench`` (the entry point in
pyproject.toml loads this package). Inspect names a task after the package that defines it, so the task is
declared here; everything it does is ``harness.engines.inspect_task`` (needs the ``[inspect]`` extra)."""

from inspect_ai import Task, task

from harness.engines.inspect_task import build_task


@task
def ml_debug_bench(tier: str = "standard", cases: str | list[str] = "", sandbox: str = "local", skill: str = "",
                   max_turns: int = 50, command_timeout: int = 300, verify: bool = True,
                   verify_sandbox: str = "auto", judge_repeats: int = 1) -> Task:
    """ml-debug-bench's cases as an Inspect task (the arguments: harness.engines.inspect_task.build_task)."""
    return build_task(tier=tier, cases=cases, sandbox=sandbox, skill=skill, max_turns=max_turns,
                      command_timeout=command_timeout, verify=verify, verify_sandbox=verify_sandbox,
                      judge_repeats=judge_repeats)

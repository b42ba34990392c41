"""The ``run`` and ``resume`` commands: settings in, a run folder out, exit codes for scripts.

Exit codes: 0 every sample ran; 1 a sample ended ``infra_error`` or errors exceeded
``--max-error-rate``; 2 a usage or input error (nothing ran); 130 interrupted (the resume
command is printed). Heavy modules are imported inside the commands so ``--help`` stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from harness.agents import AGENTS, is_local
from harness.cli.common import DEFAULT_JUDGE_INPUT_TOKENS, DEFAULT_TIER, app, err, fail, out
from harness.core.errors import BenchError, ConfigError

AGENT_HELP = " | ".join(e.usage for e in AGENTS.values()) + " | package.module[:ARG] (docs/agents.md)"

FLAGS = {"max_steps": "--max-steps", "command_timeout": "--command-timeout", "max_wall": "--max-wall",
         "max_tokens": "--max-tokens", "max_cost": "--max-cost", "max_tokens_per_call": "--max-tokens-per-call",
         "max_retries": "--max-retries", "judge_repeats": "--judge-repeats",
         "judge_max_input_tokens": "--judge-max-input-tokens", "max_parallel": "--max-parallel",
         "cpu_slots": "--cpu-slots", "max_error_rate": "--max-error-rate", "epochs": "--epochs", "order": "--order",
         "tier": "--tier", "budget_usd": "--budget-usd", "estimate_from": "--estimate-from"}


def default_parallel(agent: str) -> int:
    """4 samples at once for agents that wait on a model; 1 for local ones, whose work is all CPU."""
    return 1 if is_local(agent) else 4


def make_options(**given):
    """RunOptions from the flags, with errors that name the flag (not the field)."""
    from pydantic import ValidationError

    from harness.models import RunOptions

    try:
        return RunOptions(**given)
    except ValidationError as exc:
        problems = []
        for e in exc.errors():
            field = str(e["loc"][0]) if e["loc"] else "?"
            problems.append(f"{FLAGS.get(field, field)}: {e['msg']} (got {e.get('input')!r})")
        raise ConfigError("; ".join(problems)) from None


def _progress():
    from harness.running.progress import LiveProgress, PlainProgress

    return LiveProgress(err) if err.is_terminal else PlainProgress(err)


def _warn(message: str) -> None:
    err.print(f"[yellow]warning:[/] {message}")


def launch(options, out_dir: Path, resume_dir: Optional[Path] = None, force: bool = False) -> Path:
    """``harness.api.launch`` with the CLI's progress display and warnings. Raises BenchError subclasses."""
    from harness import api

    return api.launch(options, out_dir, resume_dir, force, progress=_progress(), warn=_warn)


def finish(run_dir: Path, max_error_rate: float) -> None:
    """Print the results and exit 1 when samples errored beyond the allowed rate (or any infra_error)."""
    from harness.analysis.html_report import RUN_HTML
    from harness.cli.results import print_results
    from harness.core.results import read_samples, read_state

    print_results(run_dir)
    out.print(f"results: {run_dir}", soft_wrap=True, markup=False, highlight=False)
    if (run_dir / RUN_HTML).is_file():
        out.print(f"report: {run_dir / RUN_HTML}", soft_wrap=True, markup=False, highlight=False)
    samples = read_samples(run_dir)
    state = read_state(run_dir)
    if state is not None and state.status == "budget_reached":
        err.print(f"[yellow]the run's budget was spent[/]: samples not started are recorded as missing; finish with "
                  f"ml-debug-bench resume {run_dir} --budget-usd LARGER")
        raise typer.Exit(1)
    infra = sum(s.status == "infra_error" for s in samples)
    errors = sum(s.status in ("agent_error", "infra_error") for s in samples)
    if infra:
        err.print(f"[red]{infra} sample(s) ended infra_error[/] (provider outage or a broken verifier; unscored). "
                  f"Redo them with: ml-debug-bench resume {run_dir}")
        raise typer.Exit(1)
    if samples and errors / len(samples) > max_error_rate:
        err.print(f"[red]{errors} of {len(samples)} sample(s) ended in error[/], more than --max-error-rate "
                  f"{max_error_rate:g}")
        raise typer.Exit(1)


def _run_or_exit(options, out_dir: Path, resume_dir: Optional[Path] = None, force: bool = False) -> None:
    from harness.core.errors import RunInterrupted

    try:
        run_dir = launch(options, out_dir, resume_dir, force)
    except RunInterrupted as exc:
        err.print(f"[yellow]{exc}[/]")
        if exc.interrupted:
            err.print(f"cut short (redone on resume): {', '.join(exc.interrupted)}")
        err.print(f"resume with: ml-debug-bench resume {exc.run_dir}")
        raise typer.Exit(130)
    except BenchError as exc:
        fail(exc)
    finish(run_dir, options.max_error_rate)


def _out_dir(path: Path) -> Path:
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {path}: not a folder (it is a file); give the folder that holds run folders")
    return path


@app.command("run")
def run_cmd(
    agent: str = typer.Option("reference", help=AGENT_HELP),
    cases: Optional[list[str]] = typer.Argument(None, help="case ids, any tier (default: every case of --tier)"),
    tier: str = typer.Option(DEFAULT_TIER, "--tier", help="standard | hard | frontier | all: the cases run "
                                                          "when no ids are given"),
    epochs: int = typer.Option(1, help="repeats per case and condition"),
    out_dir: Path = typer.Option(Path("results"), "--out", help="folder that holds run folders"),
    max_steps: int = typer.Option(50, help="per-sample step limit"),
    command_timeout: float = typer.Option(300.0, help="per-command wall-clock timeout, seconds"),
    max_wall: float = typer.Option(1800.0, help="per-sample wall-clock limit, seconds (CPU-slot waits not counted)"),
    max_tokens: Optional[int] = typer.Option(None, help="per-sample token limit (input + output)"),
    max_cost: Optional[float] = typer.Option(None, help="per-sample cost limit in USD (needs the model's price)"),
    base_url: Optional[str] = typer.Option(None, "--base-url", help="API base URL (any OpenAI-compatible server)"),
    temperature: Optional[float] = typer.Option(None, help="sampling temperature (not sent when unset)"),
    max_tokens_per_call: Optional[int] = typer.Option(None, help="output token cap per model call"),
    reasoning_effort: Optional[str] = typer.Option(None, help="e.g. low | medium | high "
                                                              "(the provider's effort setting)"),
    max_retries: int = typer.Option(4, help="SDK retries per model call for 429, 5xx and connection errors"),
    prices: Optional[Path] = typer.Option(None, help="TOML price table ($/Mtok) extending the built-in one"),
    skill: Optional[Path] = typer.Option(None, help="skill markdown file, or a folder holding SKILL.md"),
    conditions: Optional[str] = typer.Option(None, help="control,skill (default: control; control,skill with --skill)"),
    sandbox: str = typer.Option("auto", help="auto | required | none"),
    judge: Optional[str] = typer.Option(None, "--judge", help="judge each sample as it finishes: "
                                                              "openai:MODEL | anthropic:MODEL"),
    judge_repeats: int = typer.Option(1, "--judge-repeats", help="judge repeats per criterion (majority vote)"),
    judge_base_url: Optional[str] = typer.Option(None, "--judge-base-url", help="API base URL for the judge"),
    judge_max_input_tokens: int = typer.Option(DEFAULT_JUDGE_INPUT_TOKENS, "--judge-max-input-tokens",
                                               help="cap on each judge prompt, ~tokens (4 characters each)"),
    max_parallel: Optional[int] = typer.Option(None, "--max-parallel",
                                               help="samples at once (default: 4 for model agents, 1 for local ones)"),
    cpu_slots: Optional[int] = typer.Option(None, "--cpu-slots",
                                            help="CPU-heavy commands at once across samples (default: the cores)"),
    order: str = typer.Option("random", help="random (seeded, arms interleaved) | fixed"),
    seed: Optional[int] = typer.Option(None, "--seed", help="seed of the random order (default: drawn and recorded)"),
    max_error_rate: float = typer.Option(0.0, "--max-error-rate",
                                         help="exit 1 when more than this share of samples end in error"),
    resume_dir: Optional[Path] = typer.Option(None, "--resume", help="resume this run folder instead "
                                              "(its recorded settings are used; other flags are ignored)"),
    force: bool = typer.Option(False, "--force", help="with --resume: go on although inputs changed (recorded)"),
    budget_usd: Optional[float] = typer.Option(None, "--budget-usd", help="no new sample once this many dollars "
                                               "(agent + judge) are spent; needs --estimate-from or --max-cost"),
    estimate_from: Optional[Path] = typer.Option(None, "--estimate-from", help="a run whose cost per sample "
                                                 "estimates this one's, checked against --budget-usd"),
    over_budget: bool = typer.Option(False, "--over-budget", help="start although the estimate exceeds the budget"),
):
    """Run an agent over the cases, grade each sample, and print the results table."""
    if resume_dir is not None:
        resume_cmd(resume_dir, force=force, max_parallel=max_parallel, cpu_slots=cpu_slots, budget_usd=budget_usd,
                   over_budget=over_budget)
        return
    import secrets

    try:
        options = make_options(
            agent=agent, cases=list(cases or []), tier=tier, epochs=epochs,
            conditions=[c.strip() for c in (conditions or ("control,skill" if skill else "control")).split(",")
                        if c.strip()],
            skill=str(skill.resolve()) if skill else None, sandbox=sandbox, max_steps=max_steps,
            command_timeout=command_timeout, max_wall=max_wall, max_tokens=max_tokens, max_cost=max_cost,
            base_url=base_url, temperature=temperature, max_tokens_per_call=max_tokens_per_call,
            reasoning_effort=reasoning_effort, max_retries=max_retries,
            prices=str(prices.resolve()) if prices else None, judge=judge, judge_repeats=judge_repeats,
            judge_base_url=judge_base_url, judge_max_input_tokens=judge_max_input_tokens,
            max_parallel=default_parallel(agent) if max_parallel is None else max_parallel,
            cpu_slots=(os.cpu_count() or 1) if cpu_slots is None else cpu_slots,
            order=order, order_seed=seed if seed is not None else secrets.randbelow(2 ** 31),
            max_error_rate=max_error_rate, budget_usd=budget_usd,
            estimate_from=str(estimate_from.resolve()) if estimate_from else None, over_budget=over_budget)
        out_dir = _out_dir(out_dir)
    except BenchError as exc:
        fail(exc)
    _run_or_exit(options, out_dir)


@app.command("resume")
def resume_cmd(
    run_dir: Path = typer.Argument(..., help="a results/<run_id> folder"),
    force: bool = typer.Option(False, "--force", help="go on although cases, answers, prompts, skill or harness "
                                                      "changed since the run started (the mismatch is recorded)"),
    max_parallel: Optional[int] = typer.Option(None, "--max-parallel", help="samples at once (default: as recorded)"),
    cpu_slots: Optional[int] = typer.Option(None, "--cpu-slots", help="CPU-heavy commands at once "
                                                                      "(default: as recorded)"),
    budget_usd: Optional[float] = typer.Option(None, "--budget-usd", help="a new budget for the whole run "
                                               "(default: as recorded)"),
    over_budget: bool = typer.Option(False, "--over-budget", help="go on although the estimate exceeds the budget"),
):
    """Finish an interrupted or crashed run: redo only the samples without a final result."""
    from harness import api

    try:
        changes = {k: v for k, v in {"max_parallel": max_parallel, "cpu_slots": cpu_slots, "budget_usd": budget_usd,
                                     "over_budget": over_budget or None}.items() if v is not None}
        options = make_options(**{**api.resume_options(run_dir).model_dump(), **changes})
    except BenchError as exc:
        fail(exc)
    _run_or_exit(options, run_dir.parent, resume_dir=run_dir, force=force)

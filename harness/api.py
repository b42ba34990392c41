"""The library entry point: load cases, run (or resume) agents over them, judge a saved run, verify a tree,
validate cases. The CLI (``harness.cli``) parses flags into these calls; ``bench/`` and the tests call them
directly. Every function raises ``harness.core.errors.BenchError`` subclasses for the caller to report.

Heavy modules are imported inside the functions, so importing this module stays as cheap as the CLI's help.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from harness.core.errors import BenchError, ConfigError

DEFAULT_JUDGE_INPUT_TOKENS = 12000  # judges.rubric.DEFAULT_MAX_INPUT_TOKENS; checked by a test
Warn = Callable[[str], None]


def _ignore(_message: str) -> None:
    pass


def load_cases(case_ids: Optional[list[str]] = None, tier: str = "all", root: Optional[Path] = None) -> list:
    """The cases named (any tier), or every case of ``tier``; ``root`` defaults to the project's root."""
    from harness.core.cases import check_tier, find_root
    from harness.core.cases import load_cases as _load

    return _load(root or find_root(), case_ids or None, check_tier(tier))


# --- judges ----------------------------------------------------------------------------------------------


def make_judge(spec: str, repeats: int = 1, base_url: Optional[str] = None, temperature: Optional[float] = 0.0,
               cache_dir: Optional[Path] = None, no_cache: bool = False,
               max_input_tokens: int = DEFAULT_JUDGE_INPUT_TOKENS, prices=None):
    """The LLM judge ``spec`` names (``openai:MODEL`` | ``anthropic:MODEL``; the API key comes from the SDK's
    usual variable), with its verdict cache (``$ML_DEBUG_BENCH_JUDGE_CACHE``, else ``results/.judge-cache``)."""
    from harness.core.cases import find_root
    from judges.cache import VerdictCache
    from judges.llm import Judge, JudgeSettings

    if cache_dir is None and not no_cache and os.environ.get("ML_DEBUG_BENCH_JUDGE_CACHE"):
        cache_dir = Path(os.environ["ML_DEBUG_BENCH_JUDGE_CACHE"])
    if cache_dir is None and not no_cache:
        try:
            cache_dir = find_root() / "results" / ".judge-cache"
        except BenchError:
            cache_dir = Path(".judge-cache")
    return Judge(spec, JudgeSettings(temperature=temperature, base_url=base_url, max_input_tokens=max_input_tokens),
                 repeats=repeats, cache=VerdictCache(None if no_cache else cache_dir), prices=prices)


def run_judge_hook(spec: Optional[str], repeats: int, agent: str, base_url: Optional[str] = None,
                   max_input_tokens: int = DEFAULT_JUDGE_INPUT_TOKENS, warn: Warn = _ignore, prices=None):
    """The runner's judge hook for a run judged as it goes (None without a judge); ``warn`` hears about a judge
    of the agent's own model family."""
    if not spec:
        return None
    from harness.running.rejudge import RunJudgeHook
    from judges.family import same_family_warning

    warning = same_family_warning(spec, agent)
    if warning:
        warn(warning)
    judge = make_judge(spec, repeats, base_url, 0.0, None, False, max_input_tokens, prices)
    if judge.price is None:  # once per run: every call is recorded with cost null
        from harness.core.pricing import unknown_price_warning

        warn(unknown_price_warning("judge", judge.model))
    return RunJudgeHook(judge)


def judge_run(run_dir: Path, judge=None, case_ids: Optional[list[str]] = None, judge_spec: Optional[str] = None,
              max_input_tokens: int = DEFAULT_JUDGE_INPUT_TOKENS, progress: Optional[Callable[[str], None]] = None):
    """Grade (or re-grade) the LLM criteria of a saved run from its transcripts; agents are never re-run.
    ``judge=None`` only measures the judge's input (a dry run)."""
    from harness.core.cases import find_root
    from harness.running.rejudge import judge_run as _judge_run

    return _judge_run(Path(run_dir), find_root(), judge, progress=progress, case_ids=case_ids or None,
                      judge_spec=judge_spec, max_input_tokens=max_input_tokens)


# --- runs ------------------------------------------------------------------------------------------------


def conditions(options) -> tuple[tuple[str, ...], Optional[str], Optional[str]]:
    """The arms to run and the skill they need; an unusable skill fails here, before any sample."""
    from harness.core.skill import load_skill
    from harness.running.runner import CONTROL, SKILL

    conds = tuple(options.conditions)
    unknown = [c for c in conds if c not in (CONTROL, SKILL)]
    if unknown or not conds:
        raise ConfigError(f"--conditions: unknown condition(s) {', '.join(unknown) or '(none given)'} "
                          f"(known: {CONTROL}, {SKILL})")
    if SKILL in conds and options.skill is None:
        raise ConfigError("--conditions includes 'skill' but no --skill PATH was given")
    if options.skill is not None and SKILL not in conds:
        raise ConfigError("--skill was given but --conditions has no 'skill' arm")
    text, sha = load_skill(Path(options.skill)) if options.skill is not None else (None, None)
    return conds, text, sha


def price_table(options):
    """The built-in prices extended by ``--prices``."""
    from harness.core.pricing import PriceTable

    table = PriceTable()
    if options.prices is not None:
        table.extend(Path(options.prices))
    return table


def agent_options(options) -> dict:
    """Options for the model-backed agents (the others ignore them)."""
    table = price_table(options)
    return {"base_url": options.base_url, "temperature": options.temperature,
            "max_tokens_per_call": options.max_tokens_per_call, "reasoning_effort": options.reasoning_effort,
            "max_retries": options.max_retries, "prices": table}


def launch(options, out_dir: Path, resume_dir: Optional[Path] = None, force: bool = False, progress=None,
           warn: Warn = _ignore) -> Path:
    """Build everything ``options`` (a ``RunOptions``) describe and run it into a new folder under ``out_dir``,
    or resume ``resume_dir``. ``progress`` gets the runner's events (``harness.running.progress``)."""
    from harness.agents import make_agent
    from harness.agents.base import Limits
    from harness.core.cases import find_root
    from harness.core.cases import load_cases as _load
    from harness.isolation.sandbox import get_sandbox
    from harness.running.progress import PlainProgress
    from harness.running.runner import RunConfig, resume, run, run_scratch

    root = find_root()
    # a bad case or key fails here, before anything is copied
    planned = _load(root, options.cases or None, options.tier)
    conds, skill_text, skill_sha = conditions(options)
    budget = run_budget(options, len(planned) * len(conds) * options.epochs, resume_dir, warn)
    limits = Limits(max_steps=options.max_steps, max_wall_seconds=options.max_wall, max_tokens=options.max_tokens,
                    max_cost_usd=options.max_cost, command_timeout=options.command_timeout)
    box = get_sandbox(options.sandbox)
    if box.name == "none":
        warn(f"agent code is not isolated (sandbox: none): {box.reason}. Tampering is detected, not prevented.")
    if progress is None:
        from rich.console import Console

        progress = PlainProgress(Console(stderr=True))
    with run_scratch(root) as (inputs, work_dir):
        agent_obj = make_agent(options.agent, inputs.root, **agent_options(options))
        agent_obj.check_limits(limits)
        if getattr(agent_obj, "price", False) is None:  # a model agent without a price: once per run
            from harness.core.pricing import unknown_price_warning

            warn(unknown_price_warning("agent", getattr(agent_obj, "model", options.agent)))
        judge = run_judge_hook(options.judge, options.judge_repeats, options.agent, options.judge_base_url,
                               options.judge_max_input_tokens, warn, price_table(options))
        cfg = RunConfig(agent=agent_obj, cases=_load(inputs.root, options.cases or None, options.tier),
                        out_root=out_dir,
                        epochs=options.epochs, conditions=conds, skill_text=skill_text, skill_sha256=skill_sha,
                        skill_path=Path(options.skill) if options.skill else None, limits=limits, sandbox=box,
                        judge=judge, inputs=inputs, work_dir=work_dir, options=options,
                        max_parallel=options.max_parallel, cpu_slots=options.cpu_slots, order=options.order,
                        order_seed=options.order_seed,
                        run_id=resume_dir.name if resume_dir is not None else None, budget=budget)
        if resume_dir is not None:
            run_dir = resume(cfg, resume_dir, progress, force=force, warn=warn)
        else:
            run_dir = run(cfg, progress)
    write_report_html(run_dir, warn)
    return run_dir


def run_budget(options, n_planned: int, resume_dir: Optional[Path], warn: Warn):
    """The run's ``Budget`` (None without ``--budget-usd``), after the estimate is checked against it."""
    if options.budget_usd is None:
        return None
    from harness.running.budget import Budget, check_budget

    spent, done = 0.0, 0
    if resume_dir is not None:
        from harness.core.results import read_samples
        from harness.core.spend import sample_cost, total

        prior = [s for s in read_samples(resume_dir) if s.status != "infra_error"]  # infra_error ones are redone
        spent, done = total(sample_cost(s) for s in prior), len(prior)
        if spent is None:
            raise ConfigError(f"--budget-usd: {resume_dir} has samples of unknown cost, so its spend is unknown")
    warn(check_budget(options.budget_usd, spent, max(0, n_planned - done), options.estimate_from, options.max_cost,
                      options.over_budget))
    return Budget(options.budget_usd, spent)


def write_report_html(run_dir: Path, warn: Warn = _ignore) -> Path | None:
    """``report.html`` in the run folder (the self-contained page of ``report --html``); a page that cannot be
    drawn is a warning, never a lost run. Returns its path, or None when it was not written."""
    from harness.analysis.html_report import RUN_HTML, run_html

    path = Path(run_dir) / RUN_HTML
    try:
        path.write_text(run_html(Path(run_dir)), encoding="utf-8")
    except Exception as exc:  # the results are on disk already; the page is a convenience
        warn(f"could not write {path}: {type(exc).__name__}: {exc}")
        return None
    return path


def run(options, out_dir: Path = Path("results"), progress=None, warn: Warn = _ignore) -> Path:
    """Run an agent over the cases as ``options`` (a ``harness.models.RunOptions``) say; the run folder."""
    return launch(options, out_dir, progress=progress, warn=warn)


def resume_options(run_dir: Path):
    """The settings a run was started with, which its resume reuses."""
    from harness.core.results import read_manifest

    manifest = read_manifest(run_dir)
    if manifest.agent_settings.get("driver") == "session":
        raise ConfigError(f"{run_dir}: a session run is driven from outside, one command at a time; it cannot "
                          "be resumed (start a new session with `ml-debug-bench session start`)")
    if manifest.options is None:
        raise ConfigError(f"{run_dir}: this run was made before runs recorded their settings; it cannot be resumed")
    return manifest.options


def resume(run_dir: Path, force: bool = False, options=None, progress=None, warn: Warn = _ignore) -> Path:
    """Finish an interrupted run: redo only the samples without a final result (``options`` default to the
    recorded ones, ``resume_options``; ``force`` goes on although the inputs changed, and records it)."""
    run_dir = Path(run_dir)
    return launch(options or resume_options(run_dir), run_dir.parent, resume_dir=run_dir, force=force,
                  progress=progress, warn=warn)


# --- the hidden verifier and validation ---------------------------------------------------------------------


@dataclass
class Verified:
    case_id: str
    sandbox: str  # the sandbox's name (bwrap | none)
    kernel: Any  # the torch kernel level it ran under (harness.models.CpuKernel)
    result: Any  # harness.models.VerifierRun


def verify(case_id: str, directory: Optional[Path] = None, patch: Optional[Path] = None,
           seeds: Optional[int] = None, sandbox: str = "auto", kernel: Optional[str] = None,
           warn: Warn = _ignore) -> Verified:
    """A case's hidden verifier on ``directory``, or on a fresh copy of the case with ``patch`` applied,
    exactly as grading runs it (from private read-only copies of the inputs)."""
    from harness.core.cases import find_root
    from harness.core.cases import load_cases as _load
    from harness.isolation.kernels import check_level, describe
    from harness.isolation.sandbox import get_sandbox
    from harness.running.runner import run_scratch
    from harness.workspaces.patching import patched_case
    from harness.workspaces.verification import verify_tree

    root = find_root()
    (case,) = _load(root, [case_id])
    if (directory is None) == (patch is None):
        raise ConfigError("give either a folder or --patch FILE (not both)")
    if directory is not None and not Path(directory).is_dir():
        raise ConfigError(f"{directory} is not a folder")
    box = get_sandbox(sandbox)
    if kernel is not None:
        box = box.with_kernel(check_level(kernel.lower()))
    used = describe(box.kernel)
    if box.name == "none":
        warn(f"the verifier runs this folder's code unisolated (sandbox: none): {box.reason}")
    with run_scratch(root) as (inputs, _):
        (private_case,) = _load(inputs.root, [case_id])
        if patch is not None:
            with patched_case(private_case, patch) as tree:
                result = verify_tree(private_case, tree, box, guard=inputs.check, seeds=seeds)
        else:
            result = verify_tree(private_case, Path(directory), box, guard=inputs.check, seeds=seeds)
    return Verified(case_id=case.id, sandbox=box.name, kernel=used, result=result)


@dataclass
class Validation:
    cases: list  # the cases validated
    results: dict  # case id -> its checks (harness.validation.checks.Check), in order
    levels: list  # the torch kernel levels checked besides the native one


def validate(case_ids: Optional[list[str]] = None, tier: str = "all", sandbox: str = "auto",
             jobs: Optional[int] = None, only: Optional[str] = None, kernels: Optional[str] = None,
             kernels_scope: str = "all", kernels_only: bool = False, margins: bool = False,
             progress: Optional[Callable] = None, info: Warn = _ignore,
             sample: Optional[int] = None, sample_seed: int = 0) -> Validation:
    """Check each case (``validate``); ``only`` is ``CHECK[,CHECK]``, ``kernels`` e.g. ``default,avx2`` or
    ``all``, ``margins`` verifies every patch in full. ``progress`` gets each check as it finishes.
    ``sample``: only that many of each case's corpus, blind-solve and generated patch verdicts, drawn by
    ``sample_seed`` (a quicker pass; every other check runs)."""
    from harness.core.cases import check_tier, find_root
    from harness.core.cases import load_cases as _load
    from harness.isolation.kernels import native_level, parse_levels
    from harness.isolation.sandbox import get_sandbox
    from harness.validation.check_select import check_patterns, parse_only, sampler
    from harness.validation.validate import KERNEL_SCOPES, check_names, validate_cases

    root = find_root()
    case_list = _load(root, case_ids or None, check_tier(tier))
    box = get_sandbox(sandbox)
    selected = parse_only(only)
    if kernels_scope not in KERNEL_SCOPES:
        raise ConfigError(f"unknown --kernels-scope {kernels_scope!r} (known: {', '.join(KERNEL_SCOPES)})")
    if kernels_only and not kernels:
        raise ConfigError("--kernels-only needs --kernels")
    levels = parse_levels(kernels) if kernels else []
    check_patterns(selected, [n for case in case_list for n in check_names(case, root, box, levels, kernels_scope,
                                                                           native=not kernels_only)])
    if levels:
        info(f"kernel levels checked: {', '.join(levels)} (native: {native_level()})")
    results = validate_cases(case_list, root, box, jobs=jobs or os.cpu_count() or 1, progress=progress,
                             only=selected, kernels=levels, kernel_scope=kernels_scope, native=not kernels_only,
                             verdict_only=not margins,
                             select=None if sample is None else sampler(sample, sample_seed))
    return Validation(cases=case_list, results=results, levels=levels)

"""The judge commands: ``judge`` (grade a saved run), ``judge-eval`` (measure the judge) and ``import-seed``."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from harness.cli.common import DEFAULT_JUDGE_INPUT_TOKENS, app, err, out
from harness.cli.common import fail as _fail
from harness.cli.common import print_frame as _print_frame
from harness.core.errors import BenchError

# --- the LLM judge: judge a saved run, evaluate the judge, import the seed calibration set ---


def _judge_options_help() -> str:
    return "openai:MODEL (any OpenAI-compatible base_url) or anthropic:MODEL"


def _make_judge(spec: str, repeats: int, base_url: Optional[str], temperature: str, cache_dir: Optional[Path],
                no_cache: bool, max_input_tokens: int = DEFAULT_JUDGE_INPUT_TOKENS):
    """``harness.api.make_judge`` from the flags (``--judge-temperature none`` omits the temperature)."""
    from harness import api

    temp = None if temperature.lower() == "none" else float(temperature)
    return api.make_judge(spec, repeats, base_url, temp, cache_dir, no_cache, max_input_tokens)


def _print_sizes(sizes, title: str) -> None:
    import pandas as pd

    if sizes:
        _print_frame(pd.DataFrame([s.row() for s in sizes]), title)
        over = [s.name for s in sizes if s.over_cap]
        if over:
            err.print(f"[yellow]warning:[/] {len(over)} transcript(s) exceed the input cap even at the shortest "
                      f"cut: {', '.join(over[:5])}")


def _print_judge_stats(judge) -> None:
    st = judge.stats
    err.print(f"judge {judge.spec} at {judge.base_url}: {st.requests} request(s), {st.cache_hits} cache hit(s), "
              f"{st.unscored} unscored criterion verdict(s), {st.input_tokens} input / "
              f"{st.output_tokens} output tokens; "
              f"prompt {judge.prompt_sha256[:12]}")


def _print_repeat_agreement(samples) -> None:
    """Per criterion: mean share of judge repeats agreeing with the majority (only with --judge-repeats > 1)."""
    import pandas as pd

    from harness.models import CRITERIA_LLM

    rows = []
    for c in CRITERIA_LLM:
        vals = [s.verdicts[c].details.get("agreement") for s in samples if c in s.verdicts
                and (s.verdicts[c].details.get("judge") or {}).get("repeats", 1) > 1]
        vals = [v for v in vals if v is not None]
        if vals:
            rows.append({"criterion": c, "samples": len(vals), "mean agreement": f"{sum(vals) / len(vals):.2f}",
                         "unanimous": sum(v == 1.0 for v in vals)})
    if rows:
        _print_frame(pd.DataFrame(rows), "judge repeat agreement (share of repeats agreeing with the majority)")


@app.command("judge")
def judge_cmd(
    run_dir: Path = typer.Argument(..., help="a results/<run_id> folder"),
    judge: Optional[str] = typer.Option(None, "--judge", help=_judge_options_help()),
    judge_repeats: int = typer.Option(1, "--judge-repeats", min=1, help="judge each criterion J times; majority vote"),
    judge_base_url: Optional[str] = typer.Option(None, "--judge-base-url", help="API base URL for the judge"),
    judge_temperature: str = typer.Option("0", "--judge-temperature", help="a number, or 'none' to omit it"),
    judge_max_input_tokens: int = typer.Option(DEFAULT_JUDGE_INPUT_TOKENS, "--judge-max-input-tokens", min=1000,
                                               help="cap on each judge prompt, ~tokens (4 characters each)"),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir", help="verdict cache (default results/.judge-cache)"),
    no_cache: bool = typer.Option(False, "--no-cache", help="do not read or write the verdict cache"),
    cases: Optional[list[str]] = typer.Option(None, "--case", help="only these case ids"),
    dry_run: bool = typer.Option(False, "--dry-run", help="only measure the judge input size; call no model"),
):
    """Grade (or re-grade) the LLM criteria of a saved run from its transcripts; agents are never re-run."""
    from harness import api

    if not judge and not dry_run:
        _fail(ValueError("give --judge openai:MODEL or anthropic:MODEL (or --dry-run)"))
    try:
        judge_obj = None if dry_run else _make_judge(judge, judge_repeats, judge_base_url, judge_temperature,
                                                     cache_dir, no_cache, judge_max_input_tokens)
        if judge_obj is not None and getattr(judge_obj, "price", False) is None:  # once: every call costs null
            from harness.core.pricing import unknown_price_warning

            err.print(f"[yellow]warning:[/] {unknown_price_warning('judge', judge_obj.model)}", markup=True,
                      highlight=False)
        result = api.judge_run(run_dir, judge_obj, case_ids=cases or None, judge_spec=judge,
                               max_input_tokens=judge_max_input_tokens,
                               progress=lambda sid: err.print(f"judging {sid} ..."))
    except (BenchError, ValueError) as exc:
        _fail(exc)
    for w in result.warnings:
        err.print(f"[yellow]warning:[/] {w}")
    if result.skipped:
        err.print(f"[yellow]{len(result.skipped)} sample(s) not judged (infra_error): {', '.join(result.skipped)}[/]")
    _print_sizes(result.sizes, f"judge input size per sample (characters; ~tokens = chars/4; "
                               f"cap {judge_max_input_tokens} ~tokens per prompt)")
    if dry_run:
        return
    _print_judge_stats(judge_obj)
    from harness.core.results import read_samples

    _print_repeat_agreement(read_samples(run_dir))
    from harness.api import write_report_html
    from harness.cli.results import print_results

    print_results(run_dir)
    if (run_dir / "report.html").is_file():  # the run's page shows the new verdicts too
        write_report_html(run_dir, lambda m: err.print(f"[yellow]warning:[/] {m}"))


@app.command("judge-eval")
def judge_eval_cmd(
    labeled_set: Path = typer.Argument(..., help="a labeled-set .jsonl (or folder), or a seed results folder"),
    judge: Optional[str] = typer.Option(None, "--judge", help=_judge_options_help() + "; omit to compare raters only"),
    judge_repeats: int = typer.Option(1, "--judge-repeats", min=1),
    judge_base_url: Optional[str] = typer.Option(None, "--judge-base-url"),
    judge_temperature: str = typer.Option("0", "--judge-temperature"),
    judge_max_input_tokens: int = typer.Option(DEFAULT_JUDGE_INPUT_TOKENS, "--judge-max-input-tokens", min=1000),
    cache_dir: Optional[Path] = typer.Option(None, "--cache-dir"),
    no_cache: bool = typer.Option(False, "--no-cache"),
    bootstrap: int = typer.Option(2000, "--bootstrap", min=0, help="resamples of items for the 95% intervals"),
    seed: int = typer.Option(0, "--seed", help="seed of the bootstrap"),
):
    """Measure the judge against human labels: confusion matrix, sensitivity, specificity, accuracy and
    kappa with bootstrap intervals, beside the raters' ceiling and a constant judge's floor."""
    import pandas as pd

    from judges.labeled import read_labeled_set
    from judges.metaeval import (
        balance_warnings,
        constant_agreement,
        family_warnings,
        judge_agreement,
        judge_items,
        rater_agreement,
    )
    from judges.seed_import import import_seed, is_seed_folder
    from judges.sizes import input_size

    try:
        items = import_seed(labeled_set) if is_seed_folder(labeled_set) else read_labeled_set(labeled_set)
    except BenchError as exc:
        _fail(exc)
    err.print(f"{len(items)} labeled transcript(s) from {labeled_set}")
    for w in balance_warnings(items):
        err.print(f"[yellow]warning:[/] {w}")
    ceiling = rater_agreement(items, bootstrap, seed)
    if ceiling:
        _print_frame(pd.DataFrame([a.row() for a in ceiling]), "human raters vs each other (the ceiling)")
    floor = constant_agreement(items, "pass", bootstrap, seed) + constant_agreement(items, "fail", bootstrap, seed)
    _print_frame(pd.DataFrame([a.row() for a in floor]), "a constant judge vs the labels (the floor)")
    _print_sizes([input_size(i.id, i.events, i.key, i.mode, judge_max_input_tokens) for i in items],
                 "judge input size per item")
    if not judge:
        return
    try:
        judge_obj = _make_judge(judge, judge_repeats, judge_base_url, judge_temperature, cache_dir, no_cache,
                                judge_max_input_tokens)
        for w in family_warnings(items, judge):
            err.print(f"[yellow]warning:[/] {w}")
        verdicts = judge_items(items, judge_obj, progress=lambda i: err.print(f"judging {i} ..."))
    except (BenchError, ValueError) as exc:
        _fail(exc)
    statuses = {iid: {c: v.status for c, v in vs.items()} for iid, vs in verdicts.items()}
    rows = [{"item": iid, **{c: (f"{v.status} ({v.reason})" if v.status == "unscored" else v.status)
                             for c, v in vs.items()}} for iid, vs in verdicts.items()]
    _print_frame(pd.DataFrame(rows), f"judge {judge} verdicts")
    _print_frame(pd.DataFrame([a.row() for a in judge_agreement(items, statuses, judge, bootstrap, seed)]),
                 f"judge {judge} vs human labels (positive = pass; 95% CI: percentile bootstrap over items)")
    _print_judge_stats(judge_obj)


@app.command("import-seed")
def import_seed_cmd(
    seed_results: Path = typer.Argument(..., help="a seed-benchmark results folder, e.g. "
                                             "seed-benchmark/results/gpt56-medium"),
    out_path: Path = typer.Option(..., "--out", help="labeled-set .jsonl to write"),
):
    """Turn the seed benchmark's rated responses into a labeled set for judge-eval."""
    from judges.labeled import write_labeled_set
    from judges.seed_import import import_seed

    try:
        items = import_seed(seed_results)
    except BenchError as exc:
        _fail(exc)
    write_labeled_set(out_path, items)
    out.print(f"{len(items)} labeled item(s) written to {out_path}")

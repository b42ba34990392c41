"""The command line. The only module that parses arguments and prints for people."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from harness.cli_common import DEFAULT_TIER, app, err, out
from harness.cli_common import fail as _fail
from harness.cli_common import print_frame as _print_frame
from harness.cli_run import DEFAULT_JUDGE_INPUT_TOKENS
from harness.errors import BenchError, ConfigError


@app.command("validate")
def validate_cmd(cases: Optional[list[str]] = typer.Argument(None, help="case ids, any tier (default: every case "
                                                                     "of --tier)"),
                 tier: str = typer.Option(DEFAULT_TIER, "--tier", help="standard | hard | frontier | all: the cases "
                                                                     "validated when no ids are given"),
                 sandbox: str = typer.Option("auto", help="auto | required | none"),
                 jobs: int = typer.Option(os.cpu_count() or 1, "--jobs", min=1,
                                          help="checks run at once (default: the machine's cores)"),
                 only: Optional[str] = typer.Option(None, "--only", help="CHECK[,CHECK]: only these checks, by the "
                                                    "names validate prints (whole name, or the part before ':')"),
                 kernels: Optional[str] = typer.Option(None, "--kernels", help="also check every verdict under these "
                                                       "torch kernel levels: e.g. default,avx2, or all (every level "
                                                       "this CPU has up to the native one)"),
                 kernels_scope: str = typer.Option("all", "--kernels-scope", help="all | gold-broken: which verdicts "
                                                   "--kernels re-checks (README blocks always)"),
                 kernels_only: bool = typer.Option(False, "--kernels-only", help="only the --kernels checks, not the "
                                                   "native validation"),
                 margins: bool = typer.Option(False, "--margins", help="verify every patch in full and print, per "
                                              "case, how close each numeric check comes to its bound")):
    """Check each case: leak scan, entry points, README output, broken fails, gold passes, over-fixes and
    wrong corpus fixes rejected, correct corpus fixes accepted, verifier-recognising fixes rejected by the
    README run, placeholders filled, oracle full marks, floor zero, the grep baseline's location; on hard and
    frontier cases also size, construct hits, the anomaly and the seeds. The report goes to stdout, progress
    to stderr."""
    from harness.cases import check_tier, find_root, load_cases

    from harness.check_select import check_patterns, parse_only
    from harness.kernels import native_level, parse_levels
    from harness.sandbox import get_sandbox
    from harness.validate import KERNEL_SCOPES, check_names, grep_baseline_summary, validate_cases

    try:
        root = find_root()
        case_list = load_cases(root, cases or None, check_tier(tier))
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
            err.print(f"kernel levels checked: {', '.join(levels)} (native: {native_level()})")
    except BenchError as exc:
        _fail(exc)

    def line(chk) -> str:
        warned = chk.passed and chk.measured.get("warnings")
        mark = "[yellow]WARN[/]" if warned else "[green]ok  [/]" if chk.passed else "[red]FAIL[/]"
        return f"  {mark} {chk.case_id} {escape(chk.name)} ({chk.duration_s:.1f}s) {escape(chk.detail)}"

    def progress(chk) -> None:  # short: the full lines are the report, on stdout
        mark = "[red]FAIL[/]" if not chk.passed else "ok"
        err.print(f"  ... {chk.case_id} {escape(chk.name)} {mark} ({chk.duration_s:.1f}s)")

    results = validate_cases(case_list, root, box, jobs=jobs, progress=progress, only=selected, kernels=levels,
                             kernel_scope=kernels_scope, native=not kernels_only, verdict_only=not margins)
    if margins:
        _print_margins(results, case_list)
    failures = [c for checks in results.values() for c in checks if not c.passed]
    for case_id, checks in results.items():
        for chk in checks:
            out.print(line(chk))
        bad = sum(not c.passed for c in checks)
        out.print(f"[bold]{case_id}[/]: {len(checks) - bad}/{len(checks)} checks passed")
    for t, (matched, total) in grep_baseline_summary(results).items():
        out.print(f"grep baseline ({t} tier): location_match on {matched}/{total} case(s)")
    if failures:
        out.print(f"[red]{len(failures)} check(s) failed:[/] " + escape(", ".join(f"{c.case_id} {c.name}" for c in failures)))
        raise typer.Exit(1)
    out.print(f"[green]all checks passed for {len(case_list)} case(s)[/]")


def _print_margins(results, cases) -> None:
    import pandas as pd

    from harness.margins import FLAG_FRACTION, case_margins, table

    keys = {case.id: case.key for case in cases}
    for case_id, checks in results.items():
        notes = {n.check: n.why for n in keys[case_id].margin_notes} if case_id in keys else {}
        m = case_margins(case_id, checks, notes)
        if m.rows:
            _print_frame(pd.DataFrame(table(m)), f"{case_id}: margins (distance from the bound / |gold - broken|; "
                                                 f"flagged within {FLAG_FRACTION:.0%})")
        flagged = [r.check for r in m.rows if r.flagged]
        open_flags = [r.check for r in m.rows if r.flagged and not r.justified]
        err.print(f"{case_id}: {len(m.rows)} numeric check(s), {len(flagged)} flagged, {len(open_flags)} neither "
                  f"fixed nor justified in the key" + (f" ({', '.join(open_flags)})" if open_flags else "")
                  + f"; {m.not_numeric} check row(s) not numeric")


@app.command("verify")
def verify_cmd(
    case_id: str = typer.Argument(..., help="the case whose hidden verifier to run, e.g. case_01"),
    directory: Optional[Path] = typer.Argument(None, help="a folder holding a version of the case's files "
                                                          "(or give --patch)"),
    patch: Optional[Path] = typer.Option(None, "--patch", help="a unified diff (a/ b/ prefixes) to apply to a fresh "
                                                               "copy of the case, which is then verified"),
    seeds: Optional[int] = typer.Option(None, "--seeds", min=1, help="only the verifier's first N seeds (a quick "
                                                                     "look; grading and validate use all)"),
    sandbox: str = typer.Option("auto", help="auto | required | none"),
    kernel: Optional[str] = typer.Option(None, "--kernel", help="torch's SIMD kernel level to run under: default | "
                                         "avx2 | avx512 (one this CPU has; default: ATEN_CPU_CAPABILITY, else native)"),
):
    """Run a case's hidden verifier on any folder, or on the case with a patch applied, exactly as grading
    does; print its verdict JSON.

    Exit 0: the verifier passed; 1: it failed; 2: it could not run (or bad arguments, or a patch that does
    not apply)."""
    from harness.cases import find_root, load_cases

    import json

    from harness.kernels import check_level, describe
    from harness.patching import patched_case
    from harness.runner import run_scratch
    from harness.sandbox import get_sandbox
    from harness.verification import verify_tree

    try:
        root = find_root()
        (case,) = load_cases(root, [case_id])
        if (directory is None) == (patch is None):
            raise ConfigError("give either a folder or --patch FILE (not both)")
        if directory is not None and not directory.is_dir():
            raise ConfigError(f"{directory} is not a folder")
        box = get_sandbox(sandbox)
        if kernel is not None:
            box = box.with_kernel(check_level(kernel.lower()))
        used = describe(box.kernel)
        if box.name == "none":
            err.print(f"[yellow]warning:[/] the verifier runs this folder's code unisolated (sandbox: none): {box.reason}")
        with run_scratch(root) as (inputs, _):
            (private_case,) = load_cases(inputs.root, [case_id])
            if patch is not None:
                with patched_case(private_case, patch) as tree:
                    result = verify_tree(private_case, tree, box, guard=inputs.check, seeds=seeds)
            else:
                result = verify_tree(private_case, directory, box, guard=inputs.check, seeds=seeds)
    except BenchError as exc:
        _fail(exc)
    print(json.dumps({"case": case.id, "sandbox": box.name, "kernel": used.model_dump(mode="json"),
                      **result.model_dump(mode="json", exclude_none=True)},
                     indent=2))
    raise typer.Exit({"pass": 0, "fail": 1}.get(result.status, 2))


@app.command("new-case")
def new_case_cmd(case_id: str = typer.Argument(..., help="case_NN (the tier's prefix is added: hard_case_NN, "
                                                        "frontier_case_NN)"),
                 tier: str = typer.Option("standard", "--tier", help="standard | hard | frontier")):
    """Scaffold every file a case needs (cases/<id>/ and answers/<id>/): runnable, with placeholders that
    fail validate until replaced. The walk-through: docs/cases.md, "Adding a case, step by step"."""
    from harness.cases import find_root

    from harness.scaffold import new_case

    try:
        root = find_root()
        cid, written = new_case(root, case_id, tier)
    except BenchError as exc:
        _fail(exc)
    for path in written:
        out.print(str(path.relative_to(root)))
    out.print(f"{cid}: {len(written)} files written. Next: replace every SCAFFOLD-PLACEHOLDER, then "
              f"`ml-debug-bench validate {cid} --jobs 1` (docs/cases.md, \"Adding a case, step by step\").")


@app.command("cases")
def cases_cmd(tier: str = typer.Option(DEFAULT_TIER, "--tier", help="standard | hard | frontier | all")):
    """List the available cases of a tier."""
    from harness.cases import find_root, list_case_ids

    try:
        root = find_root()
        for cid in list_case_ids(root, tier):
            out.print(cid)
    except BenchError as exc:
        _fail(exc)


# --- the LLM judge: judge a saved run, evaluate the judge, import the seed calibration set ---


def _judge_options_help() -> str:
    return "openai:MODEL (any OpenAI-compatible base_url) or anthropic:MODEL"


def _make_judge(spec: str, repeats: int, base_url: Optional[str], temperature: str, cache_dir: Optional[Path],
                no_cache: bool, max_input_tokens: int = DEFAULT_JUDGE_INPUT_TOKENS):
    """Build the judge the CLI flags describe (the API key comes from the SDK's usual env var)."""
    from harness.cases import find_root

    from judges.cache import VerdictCache
    from judges.llm import Judge, JudgeSettings

    temp = None if temperature.lower() == "none" else float(temperature)
    if cache_dir is None and not no_cache and os.environ.get("ML_DEBUG_BENCH_JUDGE_CACHE"):
        cache_dir = Path(os.environ["ML_DEBUG_BENCH_JUDGE_CACHE"])
    if cache_dir is None and not no_cache:
        try:
            cache_dir = find_root() / "results" / ".judge-cache"
        except BenchError:
            cache_dir = Path(".judge-cache")
    return Judge(spec, JudgeSettings(temperature=temp, base_url=base_url, max_input_tokens=max_input_tokens),
                 repeats=repeats, cache=VerdictCache(None if no_cache else cache_dir))


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
              f"{st.unscored} unscored criterion verdict(s), {st.input_tokens} input / {st.output_tokens} output tokens; "
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


def _run_judge_hook(spec: Optional[str], repeats: int, agent: str, base_url: Optional[str] = None,
                    max_input_tokens: int = DEFAULT_JUDGE_INPUT_TOKENS):
    """The runner's judge hook for ``run --judge`` (None without --judge)."""
    if not spec:
        return None
    from harness.rejudge import RunJudgeHook
    from judges.family import same_family_warning

    warning = same_family_warning(spec, agent)
    if warning:
        err.print(f"[yellow]warning:[/] {warning}")
    return RunJudgeHook(_make_judge(spec, repeats, base_url, "0", None, False, max_input_tokens))


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
    from harness.cases import find_root

    from harness.rejudge import judge_run

    if not judge and not dry_run:
        _fail(ValueError("give --judge openai:MODEL or anthropic:MODEL (or --dry-run)"))
    try:
        root = find_root()
        judge_obj = None if dry_run else _make_judge(judge, judge_repeats, judge_base_url, judge_temperature,
                                                     cache_dir, no_cache, judge_max_input_tokens)
        result = judge_run(run_dir, root, judge_obj, progress=lambda sid: err.print(f"judging {sid} ..."),
                           case_ids=cases or None, judge_spec=judge, max_input_tokens=judge_max_input_tokens)
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
    from harness.results import read_samples

    _print_repeat_agreement(read_samples(run_dir))
    from harness.cli_results import print_results

    print_results(run_dir)


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
    from judges.metaeval import balance_warnings, constant_agreement, family_warnings, judge_agreement, \
        judge_items, rater_agreement
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
    seed_results: Path = typer.Argument(..., help="a seed-benchmark results folder, e.g. seed-benchmark/results/gpt56-medium"),
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


# the other command modules register on the same app
from harness import cli_blind, cli_results, cli_run, cli_session  # noqa: E402,F401


def main() -> None:  # pragma: no cover
    app(prog_name="ml-debug-bench")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Commands that read saved runs: report, compare, gate, leaderboard.

Only light imports at module top: pandas, scipy and matplotlib load inside the commands so
``ml-debug-bench --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from harness.cli.common import app, err, fail, out, print_frame
from harness.core.errors import BenchError, ConfigError

FORMATS = ("table", "csv", "json", "md")
CI_NOTE = ("score = mean over cases of the per-case pass rate [95% CI: Wilson at the effective sample size, "
           "pooled samples / design effect]; unscored and n/a never count as pass or fail")


def _parse_ks(text: str) -> list[float]:
    try:
        ks = [float(k) for k in text.split(",") if k.strip()]
    except ValueError:
        raise ConfigError(f"--mde-k: expected numbers separated by commas, got {text!r}") from None
    if any(k <= 0 for k in ks):
        raise ConfigError("--mde-k: every K must be > 0")
    return ks


def print_wide(df, title: str) -> None:
    """``print_frame``, but a piped table gets the width its headers need (200 columns cut them to 'discrimina…')."""
    if out.is_terminal:
        return print_frame(df, title)
    from rich.console import Console
    from rich.table import Table

    widths = [max([len(str(c))] + [len(str(v)) for v in df[c].tolist()]) for c in df.columns]
    table = Table(title=title, show_lines=False)
    for col in df.columns:
        table.add_column(str(col), no_wrap=True)
    for _, row in df.iterrows():
        table.add_row(*[str(v) for v in row.tolist()])
    Console(width=max(200, sum(widths) + 3 * len(widths) + 1)).print(table)


def table_width() -> int:
    """The width the compact tables are laid out for: the terminal's, or $COLUMNS / 100 in a pipe."""
    from harness.cli.common import pipe_width

    return out.width if out.is_terminal else pipe_width()


def print_lines(lines: list[str]) -> None:
    """Plain lines, exactly as laid out: no markup, no highlighting, no re-wrapping by rich."""
    for line in lines:
        out.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)


def print_results(run_dir: Path, wide: bool = False) -> None:
    """The per-sample table and the summary: compact (fits the width) unless ``wide`` (every label in full)."""
    import sys

    from harness.core.cases import tiers_of
    from harness.core.results import read_manifest, read_samples

    manifest = read_manifest(run_dir)
    samples = read_samples(run_dir)
    tiers = ", ".join(tiers_of(manifest.case_ids))
    if wide:
        from harness.analysis.report import display_table, summary_table

        print_wide(display_table(samples), f"run {manifest.run_id} — agent {manifest.agent}, tier {tiers}, "
                                           f"sandbox {manifest.sandbox}")
        summary = summary_table(samples)
        if not summary.empty:
            from harness.analysis.costs import cost_lines

            print_wide(summary, f"summary: pass/scored, {CI_NOTE}")
            print_lines(cost_lines(samples, 200))
    else:
        from harness.analysis.compact import samples_lines, summary_lines, wrap_words

        width, encoding = table_width(), getattr(sys.stdout, "encoding", None)
        print_lines(wrap_words([f"run {manifest.run_id}:", f"agent {manifest.agent},", f"tier {tiers},",
                                f"sandbox {manifest.sandbox}"], width, sep=" ") + [""])
        print_lines(samples_lines(samples, width, encoding))
        if samples:
            from harness.analysis.costs import cost_lines

            print_lines(["", "summary"] + summary_lines(samples, width, encoding))
            print_lines([""] + cost_lines(samples, width))
    missing = len(manifest.case_ids) * len(manifest.conditions) * manifest.epochs - len(samples)
    if missing:
        out.print(f"[yellow]{missing} planned sample(s) have no result (run interrupted?)[/]")


def print_why(run_dir: Path, case_id: str) -> None:
    from harness.analysis.why import why_lines
    from harness.core.results import read_samples

    print_lines(why_lines(read_samples(run_dir), case_id))


def _emit(frame, fmt: str) -> str:
    from harness.analysis.report import to_markdown

    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "md":
        return to_markdown(frame)
    return json.dumps(json.loads(frame.to_json(orient="records")), indent=2) + "\n"


@app.command("report")
def report_cmd(run_dir: Path = typer.Argument(..., help="a results/<run_id> folder"),
               fmt: str = typer.Option("table", "--format", help="table | csv | json | md"),
               rows: str = typer.Option("summary", "--rows", help="csv/json/md on stdout: summary (per condition "
                                                                  "× criterion) or samples (one row per sample)"),
               out_dir: Path | None = typer.Option(None, "--out", help="also write samples.<ext> and summary.<ext> "
                                                                     "(csv/json/md) into this folder"),
               html: Path | None = typer.Option(None, "--html", help="write a self-contained HTML report here"),
               wide: bool = typer.Option(False, "--wide", help="the table with every column label in full "
                                                               "(wider than a terminal)"),
               why: str | None = typer.Option(None, "--why", help="CASE: each failing check's reason for this "
                                                                  "case, from the verdicts")):
    """Print a saved run's results from disk (a table, or csv/json/md for scripts), optionally as HTML."""
    try:
        if fmt not in FORMATS:
            raise ConfigError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
        if rows not in ("summary", "samples"):
            raise ConfigError(f"--rows must be summary or samples, not {rows!r}")
        if why is not None:
            print_why(run_dir, why)
        elif fmt == "table":
            print_results(run_dir, wide=wide)
        else:
            from harness.analysis.report import samples_frame, summary_frame
            from harness.core.results import read_samples

            samples = read_samples(run_dir)
            frames = {"summary": summary_frame(samples), "samples": samples_frame(samples)}
            if out_dir is not None:
                out_dir.mkdir(parents=True, exist_ok=True)
                for name, frame in frames.items():
                    (out_dir / f"{name}.{fmt}").write_text(_emit(frame, fmt), encoding="utf-8")
            typer.echo(_emit(frames[rows], fmt), nl=False)
        if html is not None:
            from harness.analysis.html_report import run_html

            html.write_text(run_html(run_dir), encoding="utf-8")
            (out if fmt == "table" else err).print(f"wrote {html}")
    except BenchError as exc:
        fail(exc)


def _comparison(runs, condition, baseline_condition, candidate_condition, allow_different_cases, criterion):
    from harness.analysis.compare import compare, load_arms

    a, b = load_arms(list(runs), condition, baseline_condition, candidate_condition)
    return a, b, compare(a, b, allow_different_cases, primary=criterion)


@app.command("compare")
def compare_cmd(runs: list[Path] = typer.Argument(..., help="RUN (its two conditions) or RUN_A RUN_B"),
                condition: str | None = typer.Option(None, help="with two runs holding several conditions: the "
                                                                "one to compare"),
                baseline_condition: str | None = typer.Option(None, help="the baseline arm's condition"),
                candidate_condition: str | None = typer.Option(None, help="the candidate arm's condition"),
                allow_different_cases: bool = typer.Option(False, help="pair only the cases whose case and "
                                                                       "answer hashes match"),
                criterion: str = typer.Option("root_cause", help="primary criterion (the others get Holm-adjusted "
                                                                 "p-values)"),
                mde_k: str = typer.Option("", help="also show the MDE these variances predict at other K, "
                                                   "e.g. 1,3,5,10"),
                fmt: str = typer.Option("table", "--format", help="table | csv | json | md"),
                html: Path | None = typer.Option(None, "--html", help="write a self-contained HTML report "
                                                                      "(tables and a forest plot)")):
    """Paired comparison of two arms over cases: candidate − baseline per criterion, 95% CI, p, MDE."""
    try:
        if fmt not in FORMATS:
            raise ConfigError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
        from harness.analysis.compare import comparison_table

        ks = _parse_ks(mde_k)
        a, b, comp = _comparison(runs, condition, baseline_condition, candidate_condition, allow_different_cases,
                                 criterion)
        table = comparison_table(comp, ks)
        if fmt == "table":
            if comp.excluded_cases:
                out.print(f"[yellow]left out (different or missing hashes): {', '.join(comp.excluded_cases)}[/]")
            print_frame(table, f"candidate {comp.candidate} − baseline {comp.baseline}, paired over "
                               f"{len(comp.cases)} cases (tier {', '.join(comp.tiers)}; tiers never pooled): "
                               f"95% t interval over cases, exact sign-flip p, "
                               f"MDE = smallest difference detectable with 80% power at this n and K")
        elif fmt == "json":
            typer.echo(comp.model_dump_json(indent=2))
        else:
            typer.echo(_emit(table, fmt), nl=False)
        if html is not None:
            from harness.analysis.html_report import comparison_html

            html.write_text(comparison_html(a, b, comp, ks), encoding="utf-8")
    except BenchError as exc:
        fail(exc)


@app.command("gate")
def gate_cmd(baseline: Path = typer.Argument(..., help="the baseline run folder"),
             candidate: Path = typer.Argument(..., help="the candidate run folder"),
             criterion: str = typer.Option("root_cause", help="the criterion the gate decides on"),
             margin: float = typer.Option(0.10, min=0.0, help="tolerated drop (absolute, 0.10 = 10 pp)"),
             max_unscored: float = typer.Option(0.10, min=0.0, max=1.0,
                                                help="fail when errored + unscored samples exceed this share "
                                                     "in either run"),
             non_inferiority: bool = typer.Option(False, help="pass only when the lower 95% bound is above "
                                                              "−margin (shown, not merely not refuted)"),
             condition: str | None = typer.Option(None, help="the condition to compare when a run has several"),
             allow_different_cases: bool = typer.Option(False, help="pair only the cases whose hashes match"),
             tier: str | None = typer.Option(None, "--tier", help="standard | hard: the tier to decide on (needed "
                                                                 "when the runs hold both)")):
    """CI gate: exit 1 on a regression beyond the margin (or too many unscored samples), else 0."""
    try:
        from harness.analysis.compare import gate

        a, b, comp = _comparison([baseline, candidate], condition, None, None, allow_different_cases, criterion)
        result = gate(comp, a, b, criterion, margin, max_unscored, non_inferiority, tier)
    except BenchError as exc:
        fail(exc)
    from harness.analysis.compare import fmt_num

    d = result.diff
    verdict = "[bold green]PASS[/]" if result.passed else "[bold red]FAIL[/]"
    interval = "-" if d.low is None else f"[{fmt_num(d.low)}, {fmt_num(d.high)}]"
    out.print(f"gate {verdict} ({result.tier} tier): {result.reason}")
    if d.diff is None:
        out.print(f"{criterion}: no case was scored in both runs; MDE n/a")
    else:
        out.print(f"{criterion}: candidate − baseline = {fmt_num(d.diff)} {interval} "
                  f"over {d.n_cases} cases ({result.tier} tier), K = {d.k:g}; "
                  f"sign-flip p = {'-' if d.p_value is None else f'{d.p_value:.3f}'}; "
                  f"MDE (80% power) = {'n/a' if d.mde is None else f'{d.mde:.2f}'}")
    out.print("errored/unscored share: " + ", ".join(f"{k} {v:.0%}" for k, v in result.unscored_fraction.items()))
    raise typer.Exit(0 if result.passed else 1)


@app.command("leaderboard")
def leaderboard_cmd(runs: list[Path] = typer.Argument(..., help="run folders to merge"),
                    out_dir: Path = typer.Option(Path("results"), "--out", help="writes leaderboard.md, "
                                                 "leaderboard.csv and leaderboard_items.csv here"),
                    item_criterion: str = typer.Option("root_cause", help="the criterion item analysis uses"),
                    html: Path | None = typer.Option(None, "--html", help="also write a self-contained HTML page")):
    """Merge runs into one leaderboard (agent × condition rows) with item analysis per case."""
    try:
        from harness.analysis.leaderboard import build_leaderboard, write_leaderboard

        board = build_leaderboard(list(runs), item_criterion)
        paths = write_leaderboard(board, out_dir)
        if html is not None:
            from harness.analysis.html_report import leaderboard_html

            html.write_text(leaderboard_html(board), encoding="utf-8")
            paths.append(html)
    except BenchError as exc:
        fail(exc)
    out.print((out_dir / "leaderboard.md").read_text(encoding="utf-8"), markup=False, highlight=False)
    out.print("wrote " + ", ".join(str(p) for p in paths))

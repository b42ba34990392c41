"""The command line. The only module that parses arguments and prints for people."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from harness.agents import make_agent
from harness.agents.base import Limits
from harness.cases import find_root, list_case_ids, load_cases
from harness.errors import BenchError
from harness.report import display_table, summary_table
from harness.results import read_manifest, read_samples
from harness.runner import RunConfig, run
from harness.sandbox import get_sandbox

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="ml-debug-bench: can an AI agent debug a broken ML training setup?")
# Tables are wide; when piped (CI logs, files) do not squeeze them into 80 columns.
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 200)


def _fail(exc: Exception, code: int = 2):
    err.print(f"[bold red]error:[/] {exc}")
    raise typer.Exit(code)


def _print_frame(df, title: str) -> None:
    table = Table(title=title, show_lines=False)
    for col in df.columns:
        table.add_column(str(col))
    for _, row in df.iterrows():
        table.add_row(*[str(v) for v in row.tolist()])
    out.print(table)


def print_results(run_dir: Path) -> None:
    manifest = read_manifest(run_dir)
    samples = read_samples(run_dir)
    _print_frame(display_table(samples), f"run {manifest.run_id} — agent {manifest.agent}, sandbox {manifest.sandbox}")
    summary = summary_table(samples)
    if not summary.empty:
        _print_frame(summary, "summary (pass / scored; unscored and n/a are never counted as pass or fail)")
    missing = len(manifest.case_ids) * len(manifest.conditions) * manifest.epochs - len(samples)
    if missing:
        out.print(f"[yellow]{missing} planned sample(s) have no result (run interrupted?)[/]")


@app.command("run")
def run_cmd(
    agent: str = typer.Option("reference", help="reference | null"),
    cases: Optional[list[str]] = typer.Argument(None, help="case ids (default: all)"),
    epochs: int = typer.Option(1, min=1, help="repeats per case and condition"),
    out_dir: Path = typer.Option(Path("results"), "--out", help="parent folder of the run folder"),
    max_steps: int = typer.Option(50, help="per-sample step limit"),
    command_timeout: float = typer.Option(300.0, help="per-command wall-clock timeout, seconds"),
):
    """Run an agent over the cases, grade each sample, and print the results table."""
    try:
        root = find_root()
        case_list = load_cases(root, cases or None)
        cfg = RunConfig(agent=make_agent(agent, root), cases=case_list, out_root=out_dir, epochs=epochs,
                        limits=Limits(max_steps=max_steps, command_timeout=command_timeout),
                        sandbox=get_sandbox())

        def progress(label, done, total, result):
            if result is None:
                err.print(f"[{done + 1}/{total}] {label} ...")
            else:
                v = result.verdicts
                err.print(f"[{done}/{total}] {label}: {result.status} in {result.duration_s:.1f}s "
                          f"(location_match {v['location_match'].status}, fix_verified {v['fix_verified'].status})")

        run_dir = run(cfg, progress)
    except BenchError as exc:
        _fail(exc)
    print_results(run_dir)
    out.print(f"results: {run_dir}")


@app.command("report")
def report_cmd(run_dir: Path = typer.Argument(..., help="a results/<run_id> folder")):
    """Print a saved run's results table from disk."""
    try:
        print_results(run_dir)
    except BenchError as exc:
        _fail(exc)


@app.command("validate")
def validate_cmd(cases: Optional[list[str]] = typer.Argument(None, help="case ids (default: all)")):
    """Check each case: broken fails, gold passes, over-fixes rejected, oracle/floor agents, leak scan."""
    from harness.validate import validate_case

    try:
        root = find_root()
        case_list = load_cases(root, cases or None)
    except BenchError as exc:
        _fail(exc)
    failures = 0
    for case in case_list:
        err.print(f"[bold]{case.id}[/]")

        def show(chk):
            mark = "[green]ok  [/]" if chk.passed else "[red]FAIL[/]"
            err.print(f"  {mark} {chk.name} ({chk.duration_s:.1f}s) {chk.detail}")

        checks = validate_case(case, root, progress=show)
        failures += sum(not c.passed for c in checks)
    if failures:
        err.print(f"[red]{failures} check(s) failed[/]")
        raise typer.Exit(1)
    err.print(f"[green]all checks passed for {len(case_list)} case(s)[/]")


@app.command("cases")
def cases_cmd():
    """List the available cases."""
    try:
        root = find_root()
        for cid in list_case_ids(root):
            out.print(cid)
    except BenchError as exc:
        _fail(exc)


def main() -> None:  # pragma: no cover
    app(prog_name="ml-debug-bench")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""``ml-debug-bench import``: bring another engine's results into our run folders (harness.engines)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from harness.cli.common import app, err, fail, out
from harness.core.errors import BenchError

import_app = typer.Typer(add_completion=False, no_args_is_help=True,
                         help="Import a Harbor job or an Inspect AI log as run folders (then judge, report, ...).")
app.add_typer(import_app, name="import")


def _print_outcome(result) -> None:
    for run_dir in result.run_dirs:
        out.print(f"imported into {escape(str(run_dir))}")
    for sample in result.samples:
        out.print(f"  {escape(sample.sample_id)}: {sample.status}")
    for problem in result.problems:
        err.print(f"[yellow]left out:[/] {escape(problem)}")
    if result.problems:
        raise typer.Exit(1)


@import_app.command("harbor")
def harbor(job_dir: Path = typer.Argument(..., help="a Harbor job folder (one sub-folder per trial)"),
           out_dir: Path = typer.Option(Path("results"), "--out", help="where the run folders are written"),
           condition: str = typer.Option("control", "--condition", help="the arm the trials belong to")) -> None:
    """Each trial of a Harbor job as a sample: its ATIF trajectory as the transcript, the verifier's
    rewards as verdicts (graded by Harbor's verifier), its kept final files as the diff. Exits 1 when a
    trial could not be read (the others are still imported)."""
    from harness.core.cases import find_root
    from harness.engines.harbor_import import import_job

    try:
        result = import_job(find_root(), job_dir, out_dir, condition=condition)
    except BenchError as exc:
        fail(exc)
    _print_outcome(result)


@import_app.command("inspect")
def inspect_log(log: Path = typer.Argument(..., help="an Inspect AI log (.eval or .json) of the ml_debug_bench task"),
                out_dir: Path = typer.Option(Path("results"), "--out", help="where the run folder is written"),
                condition: str = typer.Option("control", "--condition", help="the arm the samples belong to")) -> None:
    """Each sample of an Inspect log of the ml_debug_bench task as a sample: its messages as the transcript,
    our scorers' verdicts as graded, their diff. Needs the [inspect] extra. Exits 1 when a sample was left out."""
    from harness.core.cases import find_root
    from harness.engines.inspect_import import import_log

    try:
        result = import_log(find_root(), log, out_dir, condition=condition)
    except BenchError as exc:
        fail(exc)
    _print_outcome(result)

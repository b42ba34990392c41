"""Commands that read saved runs: report (and, later, compare, gate, leaderboard)."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli_common import app, fail, out, print_frame
from harness.errors import BenchError
from harness.report import display_table, summary_table
from harness.results import read_manifest, read_samples


def print_results(run_dir: Path) -> None:
    manifest = read_manifest(run_dir)
    samples = read_samples(run_dir)
    print_frame(display_table(samples), f"run {manifest.run_id} — agent {manifest.agent}, sandbox {manifest.sandbox}")
    summary = summary_table(samples)
    if not summary.empty:
        print_frame(summary, "summary: pass/scored, score = mean over cases [95% CI: Wilson at one sample per case, else t over case means]; unscored and n/a never count as pass or fail")
    missing = len(manifest.case_ids) * len(manifest.conditions) * manifest.epochs - len(samples)
    if missing:
        out.print(f"[yellow]{missing} planned sample(s) have no result (run interrupted?)[/]")


@app.command("report")
def report_cmd(run_dir: Path = typer.Argument(..., help="a results/<run_id> folder")):
    """Print a saved run's results table from disk."""
    try:
        print_results(run_dir)
    except BenchError as exc:
        fail(exc)

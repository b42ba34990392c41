"""What every command module shares: the typer app, the two consoles, error exit and table printing."""

from __future__ import annotations

import os
import sys

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="ml-debug-bench: can an AI agent debug a broken ML training setup?")


def pipe_width() -> int:
    """The width `report` lays its tables out for when stdout is not a terminal: $COLUMNS, or 100."""
    try:
        return max(40, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return 100


# Other commands' rich tables are wide; when piped (CI logs, files) do not squeeze them into 80 columns.
# `report` lays its own tables out for the terminal's width, or pipe_width(), and prints them unwrapped.
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, width=None if sys.stderr.isatty() else 200)
# The cases `run`, `validate` and `cases` take when none are named: both tiers, each summarised on its own.
DEFAULT_TIER = "all"
# harness.api.DEFAULT_JUDGE_INPUT_TOKENS, without importing it for --help; tests/test_cli.py checks they agree
DEFAULT_JUDGE_INPUT_TOKENS = 12000


def fail(exc: Exception, code: int = 2):
    err.print(f"[bold red]error:[/] {exc}")
    raise typer.Exit(code)


def print_frame(df, title: str) -> None:
    table = Table(title=title, show_lines=False)
    for col in df.columns:
        table.add_column(str(col))
    for _, row in df.iterrows():
        table.add_row(*[str(v) for v in row.tolist()])
    out.print(table)

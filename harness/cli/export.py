"""``export harbor``: the cases as a Harbor dataset, one task folder per case (docs/engines.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from harness.cli.common import app, err, out
from harness.cli.common import fail as _fail
from harness.core.errors import BenchError

export_app = typer.Typer(no_args_is_help=True, help="Write the cases in another engine's task format.")
app.add_typer(export_app, name="export")


@export_app.command("harbor")
def export_harbor_cmd(out_dir: Path = typer.Argument(..., help="the dataset folder (created; a task this command "
                                                     "wrote before is replaced, anything else is refused)"),
                      cases: Optional[list[str]] = typer.Argument(None, help="case ids (default: every case "
                                                                  "of --tier)"),
                      tier: str = typer.Option("standard", "--tier", help="standard | hard | frontier | all: the "
                                               "cases exported when no ids are given"),
                      allowed_host: Optional[list[str]] = typer.Option(None, "--allowed-host", help="a host the agent "
                                                                       "may reach (its model endpoint, for an agent "
                                                                       "installed in the container); repeatable; "
                                                                       "default: no network at all")):
    """One Harbor task per case: instruction.md (the task prompt), environment/ (the case and a CPU-torch
    Dockerfile, nothing of the answers), tests/ (the hidden verifier and the graders that need no transcript,
    writing /logs/verifier/reward.json), solution/ (the gold patch and the reference report), task.toml."""
    from harness.core.cases import find_root, list_case_ids, load_case
    from harness.engines.harbor_export import export_cases

    try:
        root = find_root()
        ids = cases or list_case_ids(root, tier)
        written = export_cases([load_case(root, c) for c in ids], out_dir, tuple(allowed_host or ()))
    except BenchError as exc:
        _fail(exc)
    for task in written:
        out.print(str(task))
    err.print(f"{len(written)} Harbor task(s) in {out_dir}")

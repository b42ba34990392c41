"""``ml-debug-bench blind``: record a blind solve made through ``session``, and show each tier's measured
difficulty (harness.validation.blind)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from harness.cli.common import DEFAULT_TIER, app, fail, out

blind_app = typer.Typer(add_completion=False, no_args_is_help=True,
                        help="Blind solves: record one from a session run; per-tier solve rates.")
app.add_typer(blind_app, name="blind")


@blind_app.command("record")
def record(run_dir: Path = typer.Argument(..., help="the session's run folder (one sample)"),
           case_id: str = typer.Option(..., "--case", help="the case the session solved"),
           root_cause_right: bool = typer.Option(..., "--root-cause-right/--root-cause-wrong",
                                                 help="your judgement of its diagnosis against the key"),
           reason: str = typer.Option(..., "--reason", help="one line: why it matches the key or not"),
           model: str = typer.Option(..., "--model", help="the model that solved"),
           hint: str = typer.Option("", "--hint", help="the one sentence a hinted solve was given"),
           difficulty: Optional[int] = typer.Option(None, "--difficulty", min=1, max=5, help="its own rating"),
           misled_by: str = typer.Option("", "--misled-by", help="what it said misled it")) -> None:
    """Copy a session sample into answers/<case>/blind/NN/ with your hand judgement of its root cause."""
    from harness.core.cases import find_root, load_case
    from harness.validation.blind import record_solve

    root = find_root()
    try:
        case = load_case(root, case_id)
        dest = record_solve(run_dir, case, {"model": model, "hinted": bool(hint), "hint": hint,
                                            "root_cause_right": root_cause_right, "root_cause_reason": reason,
                                            "self_difficulty": difficulty, "misled_by": misled_by})
    except (OSError, ValueError) as exc:
        fail(f"could not record {run_dir}: {exc}")
    out.print(f"recorded {escape(str(dest.relative_to(root)))}")


@blind_app.command("summary")
def summary(tier: str = typer.Option(DEFAULT_TIER, "--tier", help="standard | hard | frontier | all")) -> None:
    """Each tier's blind-solve rate from the recorded solves (root cause right, fix accepted, both)."""
    from harness.core.cases import find_root, load_cases
    from harness.validation.blind import tier_rates

    rates = tier_rates(load_cases(find_root(), tier=tier))
    out.print("| tier | cases with solves | blind solves | root cause right | fix accepted | both | hinted: both |")
    out.print("|---|---:|---:|---:|---:|---:|---:|")
    for name, r in rates.items():
        out.print(f"| {name} | {r['cases_with_solves']} of {r['cases']} | {r['blind']} | {r['blind_root_cause']} | "
                  f"{r['blind_fix']} | {r['blind_solved']} | {r['hinted_solved']} of {r['hinted']} |")

"""The case commands: ``validate``, ``verify``, ``new-case`` and ``cases``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer
from rich.markup import escape

from harness.cli.common import DEFAULT_TIER, app, err, out
from harness.cli.common import fail as _fail
from harness.cli.common import print_frame as _print_frame
from harness.core.errors import BenchError


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
                                              "case, how close each numeric check comes to its bound"),
                 sample: Optional[int] = typer.Option(None, "--sample", min=0, help="N: only N of each case's "
                                                      "corpus, blind-solve and generated patch verdicts (one correct "
                                                      "fix among them), every other check in full"),
                 sample_seed: int = typer.Option(0, "--sample-seed", help="the draw behind --sample (the same seed "
                                                 "draws the same patches)")):
    """Check each case: leak scan, entry points, README output, broken fails, gold passes, over-fixes and
    wrong corpus fixes rejected, correct corpus fixes accepted, verifier-recognising fixes rejected by the
    README run, placeholders filled, oracle full marks, floor zero, the grep baseline's location; on hard and
    frontier cases also size, construct hits, the anomaly and the seeds. The report goes to stdout, progress
    to stderr."""
    from harness import api
    from harness.validation.hard_checks import grep_baseline_summary

    def line(chk) -> str:
        warned = chk.passed and chk.measured.get("warnings")
        mark = "[yellow]WARN[/]" if warned else "[green]ok  [/]" if chk.passed else "[red]FAIL[/]"
        return f"  {mark} {chk.case_id} {escape(chk.name)} ({chk.duration_s:.1f}s) {escape(chk.detail)}"

    def progress(chk) -> None:  # short: the full lines are the report, on stdout
        mark = "[red]FAIL[/]" if not chk.passed else "ok"
        err.print(f"  ... {chk.case_id} {escape(chk.name)} {mark} ({chk.duration_s:.1f}s)")

    try:
        done = api.validate(cases, tier, sandbox, jobs, only, kernels, kernels_scope, kernels_only, margins,
                            progress=progress, info=err.print, sample=sample, sample_seed=sample_seed)
    except BenchError as exc:
        _fail(exc)
    results, case_list = done.results, done.cases
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
        out.print(f"[red]{len(failures)} check(s) failed:[/] "
                  + escape(", ".join(f"{c.case_id} {c.name}" for c in failures)))
        raise typer.Exit(1)
    out.print(f"[green]all checks passed for {len(case_list)} case(s)[/]"
              + (f" (patch verdicts sampled: {sample} per case, --sample-seed {sample_seed})"
                 if sample is not None else ""))


def _print_margins(results, cases) -> None:
    import pandas as pd

    from harness.validation.margins import FLAG_FRACTION, case_margins, table

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
    import json

    from harness import api

    try:
        done = api.verify(case_id, directory, patch, seeds, sandbox, kernel,
                          warn=lambda m: err.print(f"[yellow]warning:[/] {m}"))
    except BenchError as exc:
        _fail(exc)
    result = done.result
    print(json.dumps({"case": done.case_id, "sandbox": done.sandbox, "kernel": done.kernel.model_dump(mode="json"),
                      **result.model_dump(mode="json", exclude_none=True)},
                     indent=2))
    raise typer.Exit({"pass": 0, "fail": 1}.get(result.status, 2))


@app.command("new-case")
def new_case_cmd(case_id: str = typer.Argument(..., help="case_NN (the tier's prefix is added: hard_case_NN, "
                                                        "frontier_case_NN)"),
                 tier: str = typer.Option("standard", "--tier", help="standard | hard | frontier")):
    """Scaffold every file a case needs (cases/<id>/ and answers/<id>/): runnable, with placeholders that
    fail validate until replaced. The walk-through: docs/cases.md, "Adding a case, step by step"."""
    from harness.core.cases import find_root
    from harness.validation.scaffold import new_case

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
    from harness.core.cases import find_root, list_case_ids

    try:
        root = find_root()
        for cid in list_case_ids(root, tier):
            out.print(cid)
    except BenchError as exc:
        _fail(exc)

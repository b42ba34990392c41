"""Case validation (docs/cases.md, answers/README.md): broken fails, gold passes, over-fixes and wrong corpus
fixes rejected, correct corpus fixes accepted, README output reproduced, oracle/floor agents, leak scan; the grep
baseline's location on every case; and on hard cases, the measurable properties that make them hard."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

from harness.core.cases import HARDENED_TIERS, Case
from harness.validation import blind, conventions, hygiene
from harness.validation.checks import (
    Check,
    check_agents,
    check_broken_fails,
    check_corpus_size,
    check_entry_points,
    check_gold_passes,
    check_leaks,
    check_over_fix,
    check_over_fixes,
    check_patch_verdict,
    check_runs,
)
from harness.validation.hard_checks import (
    check_grep_baseline,
    check_hard_construct_hits,
    check_hard_seed_runs,
    check_hard_size,
    derived_hard_checks,
)

KERNEL_SCOPES = ("all", "gold-broken")


def _verdict_jobs(case: Case, sandbox, scope: str = "all", verdict_only: bool = True) -> list[tuple]:
    """The jobs whose verdicts must not depend on the kernel: the README's output blocks, broken fails,
    gold passes, and (scope ``all``) each over-fix and corpus fix as labelled."""
    jobs: list[tuple] = [(check_runs, (case, sandbox)), (check_broken_fails, (case, sandbox, not verdict_only)),
                         (check_gold_passes, (case, sandbox))]
    if scope == "gold-broken":
        return jobs
    jobs += [(check_over_fix, (case, over, sandbox, verdict_only)) for over in case.key.over_fixes]
    jobs += [(check_patch_verdict, (case, f"corpus_{f.expect}:{f.name}", case.corpus_dir / f.patch, f.expect, sandbox,
                                    verdict_only)) for f in case.corpus]
    return jobs


def _under_kernel(level: str, fn, args) -> list[Check]:
    """``fn(*args)``'s checks renamed ``kernel[level]:name`` (the sandbox in ``args`` already runs under ``level``)."""
    out = fn(*args)
    return [c.model_copy(update={"name": f"kernel[{level}]:{c.name}"})
            for c in (out if isinstance(out, list) else [out])]


def kernel_jobs(case: Case, sandbox, levels: list[str], scope: str = "all", verdict_only: bool = True) -> list[tuple]:
    """Every verdict job again under each of ``levels`` (``ATEN_CPU_CAPABILITY`` on a copy of the sandbox, never
    in our environment), named ``kernel[level]:...``: each must give the verdict its label asks for there too."""
    if scope not in KERNEL_SCOPES:
        raise ValueError(f"unknown kernel scope {scope!r} (known: {', '.join(KERNEL_SCOPES)})")
    return [(_under_kernel, (level, fn, args))
            for level in levels for fn, args in _verdict_jobs(case, sandbox.with_kernel(level), scope, verdict_only)]


def validation_jobs(case: Case, root: Path, sandbox, verdict_only: bool = True) -> list[tuple]:
    """The independent pieces of one case's validation, as (function, args) that pickle: each runs on
    its own (the verifications are subprocesses), so they can be spread over the machine's cores."""
    jobs: list[tuple] = [(check_leaks, (case,)), (check_entry_points, (case,)), (check_runs, (case, sandbox)),
                         (check_broken_fails, (case, sandbox)), (check_gold_passes, (case, sandbox))]
    if not case.key.over_fixes:
        jobs.append((check_over_fixes, (case, sandbox)))
    jobs += [(check_over_fix, (case, over, sandbox, verdict_only)) for over in case.key.over_fixes]
    jobs.append((check_corpus_size, (case,)))
    jobs += [conventions.corpus_job(case, f, sandbox, verdict_only) for f in case.corpus]
    jobs += conventions.convention_jobs(case, sandbox) + hygiene.hygiene_jobs(case, root)
    jobs.append((check_agents, (case, root, sandbox)))
    jobs.append((check_grep_baseline, (case, sandbox)))
    jobs += blind.blind_jobs(case, sandbox)
    if case.tier in HARDENED_TIERS:
        jobs += [(check_hard_size, (case,)), (check_hard_construct_hits, (case,))]
        if case.key.hardness is not None and case.key.hardness.seed_command:
            jobs.append((check_hard_seed_runs, (case, sandbox)))
    return jobs


def _run_job(job) -> list[Check]:
    fn, args = job
    out = fn(*args)
    return out if isinstance(out, list) else [out]


def _run_pool(work: list[tuple], jobs: int, width, memo: Path, finished) -> None:
    """``work`` over a pool of ``jobs`` fresh processes sharing the verdict folder ``memo``, keeping at
    most ``width()`` checks in flight; a crashed check is a failed check, never a lost one."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from harness.workspaces import verify_memo

    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=verify_memo.use,
                             initargs=(memo,)) as pool:
        pending: dict = {}
        following = 0
        while following < len(work) or pending:
            allowed = min(jobs, width()) if width else jobs
            if allowed <= 0 and not pending:
                break  # told to stop: the checks not started are reported as not run
            while following < len(work) and len(pending) < allowed:
                pending[pool.submit(_run_job, work[following][1])] = following
                following += 1
            done, _ = wait(pending, timeout=2.0 if width else None, return_when=FIRST_COMPLETED)
            for fut in done:
                i = pending.pop(fut)
                try:
                    checks = fut.result()
                except Exception as exc:
                    checks = [Check(case_id=work[i][0], name=getattr(work[i][1][0], "__name__", "check"),
                                    passed=False, detail=f"crashed: {type(exc).__name__}: {exc}")]
                finished(i, checks)


def validate_cases(cases: list[Case], root: Path, sandbox, jobs: int = 1, progress=None,
                   only: list[str] | None = None, kernels: list[str] = (), kernel_scope: str = "all",
                   native: bool = True, verdict_only: bool = True,
                   width: Callable[[], int] | None = None,
                   select: Callable[[Case, list[str]], set[str]] | None = None) -> dict[str, list[Check]]:
    """Validate ``cases`` with up to ``jobs`` checks at once (separate processes, started fresh so no
    thread of ours is forked); checks come back in each case's own order, ``progress`` sees them as they end.
    ``only``: just the checks of those names (``harness.validation.check_select``). ``kernels``: also run the verdict
    checks under each of these levels (``kernel_jobs``); ``native=False`` runs only those.
    ``verdict_only=False`` verifies every patch in full (``--margins`` needs every row).
    ``width``: how many checks may run at once right now (at most ``jobs``; 0 stops starting new ones), read
    again as checks end; the test suite validates on one core while its other tests use the other, then on
    all of them.
    A tree verified twice in one call (the reference agent's and the gold patch's) is verified once
    (``harness.workspaces.verify_memo``). ``select(case, names)``: the names of the case's checks to run, from
    all of them (``check_select.sampler``: only a drawn few patch verdicts); a job runs when all its checks do."""
    from harness.validation.check_select import job_names, select_jobs, wanted
    from harness.workspaces import verify_memo

    chosen: dict[str, set[str] | None] = {}
    work = []
    for case in cases:
        case_jobs = select_jobs((validation_jobs(case, root, sandbox, verdict_only) if native else [])
                                + (kernel_jobs(case, sandbox, list(kernels), kernel_scope, verdict_only)
                                   if kernels else []), only)
        chosen[case.id] = None if select is None else select(case, [n for j in case_jobs for n in job_names(j)]
                                                             + derived_names(case, native))
        work += [(case.id, job) for job in case_jobs
                 if chosen[case.id] is None or all(n in chosen[case.id] for n in job_names(job))]
    results: list[list[Check] | None] = [None] * len(work)

    def finished(i: int, checks: list[Check]) -> None:
        results[i] = checks
        for chk in checks:
            progress and progress(chk)

    with tempfile.TemporaryDirectory(prefix="mldb-verdicts-") as memo:
        if jobs <= 1:
            with verify_memo.enabled(Path(memo)):
                for i, (_, job) in enumerate(work):
                    finished(i, _run_job(job))
        else:
            _run_pool(work, jobs, width, Path(memo), finished)
    out: dict[str, list[Check]] = {case.id: [] for case in cases}
    for i, (case_id, job) in enumerate(work):
        if results[i] is None:
            results[i] = [Check(case_id=case_id, name=getattr(job[0], "__name__", "check"), passed=False,
                                detail="not run: validation was stopped before this check started")]
    ran: dict[str, list[Check]] = {case.id: [] for case in cases}  # with the inputs --only brought for derived checks
    for (case_id, _), checks in zip(work, results):
        ran[case_id] += checks
        out[case_id] += [c for c in checks if wanted(c.name, only)]
    for case in cases:
        if case.tier in HARDENED_TIERS and native:
            derived = [c for c in derived_hard_checks(case, ran[case.id]) if wanted(c.name, only)
                       and (chosen[case.id] is None or c.name in chosen[case.id])]
            out[case.id] += derived
            for chk in derived:
                progress and progress(chk)
    return out


def validate_case(case: Case, root: Path, sandbox, progress=None) -> list[Check]:
    return validate_cases([case], root, sandbox, 1, progress)[case.id]


# --- the grep baseline and the hard tier's properties (docs/cases.md, "The hard tier") ---------------------------

def check_names(case: Case, root: Path, sandbox, kernels: list[str] = (), kernel_scope: str = "all",
                native: bool = True) -> list[str]:
    """Every check name ``validate`` reports for ``case``, known before anything runs (for ``--only``)."""
    from harness.validation.check_select import job_names

    jobs = (validation_jobs(case, root, sandbox) if native else []) + \
        (kernel_jobs(case, sandbox, list(kernels), kernel_scope) if kernels else [])
    return [n for job in jobs for n in job_names(job)] + derived_names(case, native)


def derived_names(case: Case, native: bool = True) -> list[str]:
    """The checks ``derived_hard_checks`` computes after the others (hard and frontier cases, native runs)."""
    from harness.validation.check_select import DERIVED_INPUTS

    return list(DERIVED_INPUTS) if case.tier in HARDENED_TIERS and native else []

"""Case validation (docs/cases.md, answers/README.md): broken fails, gold passes, over-fixes and wrong corpus
fixes rejected, correct corpus fixes accepted, README output reproduced, oracle/floor agents, leak scan; the grep
baseline's location on every case; and on hard cases, the measurable properties that make them hard."""

from __future__ import annotations

import ast
import re
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from harness.agents.null import NullAgent
from harness.agents.reference import ReferenceAgent
from harness.cases import HARDENED_TIERS, Case
from harness.criteria import CRITERIA_DETERMINISTIC
from harness.criteria import names as criteria_names
from harness.hashing import iter_files
from harness.models import VerifierRun
from harness.verification import verify_tree
from harness.workspace import apply_patch, create_workspace, remove_workspace

MIN_SEEDS = 3
# The workspace modules a hidden verifier imports (each must be named by an entry point).
VERIFIER_IMPORT = re.compile(r"import_workspace_module\(\s*['\"]([\w.]+)['\"]")
# Words an author would not leave in a repo whose bug they had not found yet.
HINT_WORDS = re.compile(r"\b(bug|buggy|fixme|xxx|hack|intentional(ly)?|deliberate(ly)?|canary|answer key)\b", re.I)


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    name: str
    passed: bool
    detail: str = ""
    duration_s: float = 0.0
    measured: dict[str, Any] = Field(default_factory=dict, description="the numbers behind the verdict, for "
                                                                       "summaries (line counts, hits, ...)")


def _seeds(out: VerifierRun) -> dict[str, bool]:
    return {str(k): bool(v) for k, v in (out.result.get("seeds") or {}).items()}


def _verify_variant(case: Case, patch: Path | None, sandbox, verdict_only: bool = False) -> VerifierRun:
    ws = create_workspace(case.case_dir)
    try:
        if patch is not None:
            apply_patch(ws, patch)
        return verify_tree(case, ws, sandbox, verdict_only=verdict_only)
    finally:
        remove_workspace(ws)


def numeric_rows(out: VerifierRun) -> dict[str, Any]:
    """The verifier's checks that carry a machine-readable bound (``limit``/``sense``), compact, for
    ``validate --margins``; and how many carry none."""
    rows, other = [], 0
    for row in out.result.get("checks") or []:
        value = row.get("value")
        if row.get("limit") is not None and row.get("sense") in ("<", ">") and isinstance(value, (int, float)) \
                and not isinstance(value, bool):
            rows.append({"name": row.get("name"), "seed": row.get("seed"), "value": float(value),
                         "limit": float(row["limit"]), "sense": row["sense"]})
        else:
            other += 1
    return {"rows": rows, "not_numeric": other, "early_stop": out.early_stop}


def _describe(out: VerifierRun) -> str:
    seeds = _seeds(out)
    text = f"seeds={seeds}" if seeds else "no per-seed results"
    if out.early_stop:
        text += " (verdict only: stopped at the first seed)"
    if out.reason:
        text += f"; {out.status}: {out.reason}"
    if out.status == "error":
        tails = [p.stderr_tail[-300:] for p in (out.measure, out.decide) if p is not None]
        text += "; stderr: " + " | ".join(tails)
    return text


def _run_broken(case: Case, command: str, sandbox):
    ws = create_workspace(case.case_dir)
    try:
        return sandbox.run(command, ws, case.manifest.timeout_seconds, 256 * 1024)
    finally:
        remove_workspace(ws)


def check_runs(case: Case, sandbox) -> list[Check]:
    """The broken repo's run command finishes within its budget, and every README block of output
    (listed in answers/case_NN/symptoms.toml) is what the broken repo prints today."""
    commands = list(dict.fromkeys([case.manifest.run] + [r.command for r in (case.symptoms.run if case.symptoms else [])]))
    results = {cmd: _run_broken(case, cmd, sandbox) for cmd in commands}
    main = results[case.manifest.run]
    checks = [Check(case_id=case.id, name="broken_runs_in_budget", passed=not main.timed_out,
                    detail=f"'{case.manifest.run}' took {main.duration_s:.1f}s (budget "
                           f"{case.manifest.timeout_seconds:g}s), exit {main.exit_code}", duration_s=main.duration_s)]
    if case.symptoms is None:
        return checks + [Check(case_id=case.id, name="readme_output_matches", passed=False,
                               detail="no answers/<case>/symptoms.toml ties the README's output blocks to commands")]
    blocks = readme_blocks((case.case_dir / "README.md").read_text(encoding="utf-8"))
    for run in case.symptoms.run:
        name = f"readme_output_matches:block{run.block}"
        if run.block > len(blocks):
            checks.append(Check(case_id=case.id, name=name, passed=False, detail=f"README has {len(blocks)} blocks"))
            continue
        res = results[run.command]
        problems = compare_output(blocks[run.block - 1], res.stdout + res.stderr, run.abs_tol_digits, run.ignore)
        checks.append(Check(case_id=case.id, name=name, passed=not problems, duration_s=res.duration_s,
                            detail=f"'{run.command}': " + ("; ".join(problems[:3]) if problems else "every line matches")))
    return checks


FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
# A number stands alone: not part of a word or hash ("f1dbd9162333e509" holds none).
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![0-9.]*[A-Za-z_])")


def readme_blocks(text: str) -> list[str]:
    return [m.group(1) for m in FENCE.finditer(text)]


def _unit(number: str) -> float:
    """One unit of the last printed digit: 2.474 -> 0.001, 7.50e-05 -> 1e-07, 300 -> 1."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def compare_output(block: str, output: str, tol_digits: float, ignore: list[str]) -> list[str]:
    """README lines with no output line of the same shape whose numbers agree within tolerance."""
    by_shape: dict[str, list[list[str]]] = {}
    for line in output.splitlines():
        by_shape.setdefault(NUMBER.sub("#", line.strip()), []).append(NUMBER.findall(line))
    problems = []
    for line in block.splitlines():
        text = line.strip()
        if not text or set(text) <= {".", " ", "…"} or any(pat in text for pat in ignore):
            continue
        want = NUMBER.findall(text)
        candidates = by_shape.get(NUMBER.sub("#", text), [])
        if not any(all(abs(float(a) - float(b)) <= tol_digits * _unit(a) for a, b in zip(want, got))
                   for got in candidates):
            near = f"; nearest printed: {candidates[0]}" if candidates else "; no printed line has that shape"
            problems.append(f"README line {text[:90]!r} not reproduced{near}")
    return problems


def _module_file(case_dir: Path, parts: list[str]) -> tuple[Path | None, list[str]]:
    """The longest dotted prefix of ``parts`` that is a module of the case (``a/b.py`` or ``a/b/__init__.py``),
    and the names left after it."""
    for k in range(len(parts) - 1, 0, -1):
        base = case_dir.joinpath(*parts[:k])
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                return path, parts[k:]
    return None, []


def check_entry_points(case: Case) -> Check:
    """Every entry point the task prompt names exists in the case as shipped (package.module.name[.attr]), and
    every workspace module the hidden verifier imports is named by one, so the agent is told what not to move."""
    missing = []
    for spec in case.manifest.entry_points:
        path, names = _module_file(case.case_dir, spec.split("."))
        if path is None:
            missing.append(spec)
            continue
        scope = ast.parse(path.read_text(encoding="utf-8")).body
        for name in names:
            found = [n for n in scope if (isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name)
                     or (isinstance(n, ast.Assign) and any(getattr(t, "id", None) == name for t in n.targets))
                     or (isinstance(n, ast.AnnAssign) and getattr(n.target, "id", None) == name)]
            if not found:
                missing.append(spec)
                break
            scope = getattr(found[0], "body", [])
    measure = case.answer_dir / case.key.measure
    imported = set(VERIFIER_IMPORT.findall(measure.read_text(encoding="utf-8"))) if measure.is_file() else set()
    unnamed = sorted(m for m in imported if not any(e.startswith(m + ".") for e in case.manifest.entry_points))
    ok = bool(case.manifest.entry_points) and not missing and not unnamed
    detail = (f"missing: {', '.join(missing)}" if missing else
              ", ".join(case.manifest.entry_points) or "case.toml names no entry_points")
    if unnamed:
        detail += f"; the verifier imports {', '.join(unnamed)}, which no entry point names"
    return Check(case_id=case.id, name="entry_points_exist", passed=ok, detail=detail)


def check_corpus_size(case: Case) -> Check:
    """The mutation corpus holds at least 4 correct fixes and 6 wrong ones (each is then its own check)."""
    n_accept = sum(f.expect == "accept" for f in case.corpus)
    n_reject = sum(f.expect == "reject" for f in case.corpus)
    return Check(case_id=case.id, name="corpus_size", passed=n_accept >= 4 and n_reject >= 6,
                 detail=f"{n_accept} correct fixes (need 4), {n_reject} wrong fixes (need 6) in fixes/fixes.toml")


def check_broken_fails(case: Case, sandbox) -> Check:
    out = _verify_variant(case, None, sandbox)
    seeds = _seeds(out)
    ok = out.status == "fail" and len(seeds) >= MIN_SEEDS and not any(seeds.values())
    return Check(case_id=case.id, name="verifier_fails_on_broken", passed=ok, detail=_describe(out),
                 duration_s=out.duration_s, measured={"seeds": seeds, **numeric_rows(out)})


def check_gold_passes(case: Case, sandbox) -> Check:
    try:
        out = _verify_variant(case, case.gold_patch_path, sandbox)
    except Exception as exc:
        return Check(case_id=case.id, name="verifier_passes_on_gold", passed=False, detail=str(exc))
    seeds = _seeds(out)
    ok = out.status == "pass" and len(seeds) >= MIN_SEEDS and all(seeds.values())
    return Check(case_id=case.id, name="verifier_passes_on_gold", passed=ok, detail=_describe(out),
                 duration_s=out.duration_s, measured=numeric_rows(out))


def check_patch_verdict(case: Case, name: str, patch: Path, expect: str, sandbox, verdict_only: bool = True) -> Check:
    """A labelled patch (an over-fix, or a fix of the mutation corpus) gets the verdict it is labelled with.
    A patch expected to be rejected is verified verdict-only (``verify_tree``: it stops at a failing first
    seed, with the same verdict as a full verification); ``verdict_only=False`` keeps every seed's rows
    (``--margins``). A patch expected to pass is always verified in full."""
    try:
        out = _verify_variant(case, patch, sandbox, verdict_only=verdict_only and expect == "reject")
    except Exception as exc:
        return Check(case_id=case.id, name=name, passed=False, detail=f"patch failed to apply: {exc}")
    ok = out.status == ("pass" if expect == "accept" else "fail")
    return Check(case_id=case.id, name=name, passed=ok, detail=f"expected {expect}; " + _describe(out),
                 duration_s=out.duration_s, measured=numeric_rows(out))


def check_over_fix(case: Case, over, sandbox, verdict_only: bool = True) -> Check:
    return check_patch_verdict(case, f"over_fix_rejected:{over.name}", case.answer_dir / over.patch, "reject", sandbox,
                               verdict_only)


def check_over_fixes(case: Case, sandbox) -> list[Check]:
    if not case.key.over_fixes:
        return [Check(case_id=case.id, name="over_fixes_named", passed=False, detail="the key names no over-fix")]
    return [check_over_fix(case, over, sandbox) for over in case.key.over_fixes]


def check_agents(case: Case, root: Path, sandbox) -> list[Check]:
    """The oracle scores full marks on the deterministic checks; the floor scores zero."""
    from harness.runner import RunConfig, run_sample  # runner imports judges; keep this module light

    checks = []
    with tempfile.TemporaryDirectory(prefix="mldb-validate-") as tmp:
        for agent, want in ((ReferenceAgent(root), "pass"), (NullAgent(), "fail")):
            cfg = RunConfig(agent=agent, cases=[case], out_root=Path(tmp), sandbox=sandbox)
            t0 = time.monotonic()
            result = run_sample(cfg, Path(tmp), case, "control", 0)
            # the oracle passes every deterministic criterion; the floor fails those the registry marks
            names = CRITERIA_DETERMINISTIC if want == "pass" else criteria_names("deterministic", floor_fails=True)
            got = {n: result.verdicts[n].status for n in names}
            ok = result.status == "completed" and all(v == want for v in got.values())
            checks.append(Check(case_id=case.id, name=f"{agent.name}_agent_scores_{want}", passed=ok,
                                detail=f"status={result.status} {got}" + (f" error={result.error}" if result.error else ""),
                                duration_s=round(time.monotonic() - t0, 2)))
    return checks


def check_leaks(case: Case) -> Check:
    problems = []
    if (case.case_dir / ".git").exists():
        problems.append(".git folder present")
    terms = [case.key.canary, "answers/"] + case.key.leak_terms
    for path in iter_files(case.case_dir):
        rel = path.relative_to(case.case_dir).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        low = text.lower()
        problems += [f"{rel}: contains answer term {t!r}" for t in terms if t and t.lower() in low]
        if path.suffix == ".py":
            problems += [f"{rel}: hint word {m.group(0)!r}" for m in HINT_WORDS.finditer(text)]
    return Check(case_id=case.id, name="leak_scan", passed=not problems, detail="; ".join(problems[:10]) or "clean")


KERNEL_SCOPES = ("all", "gold-broken")


def _verdict_jobs(case: Case, sandbox, scope: str = "all", verdict_only: bool = True) -> list[tuple]:
    """The jobs whose verdicts must not depend on the kernel: the README's output blocks, broken fails,
    gold passes, and (scope ``all``) each over-fix and corpus fix as labelled."""
    jobs: list[tuple] = [(check_runs, (case, sandbox)), (check_broken_fails, (case, sandbox)),
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
    return [c.model_copy(update={"name": f"kernel[{level}]:{c.name}"}) for c in (out if isinstance(out, list) else [out])]


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
    from harness import blind, conventions, hygiene  # they build on this module's checks

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

    from harness import verify_memo

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
                   width: Callable[[], int] | None = None) -> dict[str, list[Check]]:
    """Validate ``cases`` with up to ``jobs`` checks at once (separate processes, started fresh so no
    thread of ours is forked); checks come back in each case's own order, ``progress`` sees them as they end.
    ``only``: just the checks of those names (``harness.check_select``). ``kernels``: also run the verdict
    checks under each of these levels (``kernel_jobs``); ``native=False`` runs only those.
    ``verdict_only=False`` verifies every patch in full (``--margins`` needs every row).
    ``width``: how many checks may run at once right now (at most ``jobs``; 0 stops starting new ones), read
    again as checks end; the test suite validates on one core while its other tests use the other, then on
    all of them.
    A tree verified twice in one call (the reference agent's and the gold patch's) is verified once
    (``harness.verify_memo``)."""
    from harness import verify_memo
    from harness.check_select import select_jobs, wanted

    work = [(case.id, job) for case in cases
            for job in select_jobs((validation_jobs(case, root, sandbox, verdict_only) if native else [])
                                   + (kernel_jobs(case, sandbox, list(kernels), kernel_scope, verdict_only)
                                      if kernels else []), only)]
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
    for (case_id, _), checks in zip(work, results):
        out[case_id] += [c for c in checks if wanted(c.name, only)]
    for case in cases:
        if case.tier in HARDENED_TIERS and native:
            derived = [c for c in derived_hard_checks(case, out[case.id]) if wanted(c.name, only)]
            out[case.id] += derived
            for chk in derived:
                progress and progress(chk)
    return out


def validate_case(case: Case, root: Path, sandbox, progress=None) -> list[Check]:
    return validate_cases([case], root, sandbox, 1, progress)[case.id]


# --- the grep baseline and the hard tier's properties (docs/cases.md, "The hard tier") ---------------------------

HARD_MIN_LINES = 1200
HARD_MIN_MODULES = 10
HARD_MIN_CONSTRUCT_HITS = 5
HARD_SEEDS = 3
HARD_MAX_RUN_S = 15.0


def check_grep_baseline(case: Case, sandbox) -> Check:
    """Where ``--agent grep`` would point on this case (its own search, run in a fresh workspace through the
    sandbox) and whether that passes ``location_match``. Reported on every case; on a hard case the first hit
    must NOT be the bug (the tier exists because one grep for the right construct finds most standard bugs)."""
    from harness.agents.grep import report_for, search
    from judges.deterministic import location_match
    from judges.grading import case_file_lines

    t0 = time.monotonic()
    ws = create_workspace(case.case_dir)
    try:
        hit = search(lambda cmd: sandbox.run(cmd, ws, 60.0, 256 * 1024).stdout)
    finally:
        remove_workspace(ws)
    verdict = location_match(report_for(hit), case.key.locations, case_file_lines(case))
    where = f"{hit.location} ({hit.construct.family}: {hit.text.strip()[:80]!r})" if hit else "no hit"
    detail = f"first hit {where}; location_match {verdict.status}"
    if case.tier == "hard":
        detail += " (a hard case's first grep hit must not be the bug)" if verdict.status == "pass" else ""
    elif case.tier == "frontier":
        detail += " (reported, not required on the frontier tier)"
    return Check(case_id=case.id, name="grep_baseline", passed=case.tier != "hard" or verdict.status != "pass",
                 detail=detail, duration_s=round(time.monotonic() - t0, 2),
                 measured={"tier": case.tier, "location_match": verdict.status,
                           "location": hit.location if hit else "", "family": hit.construct.family if hit else ""})


def grep_baseline_summary(results: dict[str, list[Check]]) -> dict[str, tuple[int, int]]:
    """tier -> (cases where the grep baseline's location matched, cases measured)."""
    out: dict[str, tuple[int, int]] = {}
    for checks in results.values():
        for chk in checks:
            if chk.name == "grep_baseline" and chk.measured:
                matched, total = out.get(chk.measured["tier"], (0, 0))
                out[chk.measured["tier"]] = (matched + (chk.measured["location_match"] == "pass"), total + 1)
    return out


def python_files(case: Case) -> list[Path]:
    return [p for p in iter_files(case.case_dir) if p.suffix == ".py"]


def check_hard_size(case: Case) -> Check:
    """At least 1,200 lines of Python over at least 10 modules (``cat *.py | wc -l`` counting)."""
    files = python_files(case)
    lines = sum(len(p.read_text(encoding="utf-8", errors="replace").splitlines()) for p in files)
    ok = lines >= HARD_MIN_LINES and len(files) >= HARD_MIN_MODULES
    return Check(case_id=case.id, name="hard_size", passed=ok,
                 detail=f"{lines} Python lines (need {HARD_MIN_LINES}) over {len(files)} .py modules "
                        f"(need {HARD_MIN_MODULES})", measured={"lines": lines, "modules": len(files)})


def construct_hits(case: Case, pattern: str) -> list[tuple[str, int, bool]]:
    """(file, line, inside a key location) for every .py line ``pattern`` matches, in sorted file then
    line order: the order a grep piped through sort shows them."""
    regex = re.compile(pattern)
    spans = [(loc.file, loc.start_line, loc.end_line) for loc in case.key.locations]
    hits = []
    for path in python_files(case):
        rel = path.relative_to(case.case_dir).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if regex.search(line):
                hits.append((rel, n, any(f == rel and a <= n <= b for f, a, b in spans)))
    return sorted(hits)


def check_hard_construct_hits(case: Case) -> Check:
    """The key's construct regex hits at least 5 .py lines, at least one inside a key location (the bug)."""
    if case.key.hardness is None:
        return Check(case_id=case.id, name="hard_construct_hits", passed=False, detail="the key has no [hardness]")
    pattern = case.key.hardness.construct_regex
    hits = construct_hits(case, pattern)
    in_key = [f"{f}:{n}" for f, n, inside in hits if inside]
    ok = len(hits) >= HARD_MIN_CONSTRUCT_HITS and bool(in_key)
    grep_note = "" if case.tier != "frontier" else f" ({'met' if ok else 'not met'}; reported, not required on the frontier tier)"
    ok = ok or case.tier == "frontier"
    first = f"{hits[0][0]}:{hits[0][1]}" + (" (inside the key: the bug)" if hits[0][2] else " (outside the key)") \
        if hits else "none"
    return Check(case_id=case.id, name="hard_construct_hits", passed=ok,
                 detail=f"{pattern!r} hits {len(hits)} lines (need {HARD_MIN_CONSTRUCT_HITS}), "
                        f"{len(in_key)} inside a key location (need 1: {', '.join(in_key[:3]) or 'none'}); "
                        f"first hit {first}{grep_note}",
                 measured={"hits": len(hits), "in_key": len(in_key), "first_hit_is_bug": bool(hits and hits[0][2])})


def check_hard_seed_runs(case: Case, sandbox) -> Check:
    """The key's ``seed_command`` on seeds 0, 1, 2 of the broken repo, each in a fresh workspace, timed."""
    template = case.key.hardness.seed_command
    times, problems = [], []
    for seed in range(HARD_SEEDS):
        res = _run_broken(case, template.replace("{seed}", str(seed)), sandbox)
        times.append(round(res.duration_s, 1))
        if res.timed_out:
            problems.append(f"seed {seed} timed out")
    return Check(case_id=case.id, name="hard_seed_runs", passed=not problems,
                 detail=f"{template!r} on seeds 0-{HARD_SEEDS - 1}: {times} s" + (f"; {'; '.join(problems)}" if problems else ""),
                 duration_s=sum(times), measured={"run_s": times})


STOP_WORDS = {"which", "there", "their", "would", "should", "could", "about", "after", "before", "because",
              "where", "while", "other", "these", "those", "every", "the", "that", "this", "with", "from", "instead"}


def _stems(text: str) -> set[str]:
    """Content words cut to 5 letters ('warmup' and 'warm-up's 'warmu' meet; 'clipping'/'clipped' too)."""
    words = re.findall(r"[a-z]+", text.lower().replace("-", ""))
    return {w[:5] for w in words if len(w) >= 5 and w not in STOP_WORDS}


def derived_hard_checks(case: Case, checks: list[Check]) -> list[Check]:
    """Checks that combine other checks' results: ``hard_seeds_reproduce`` (the verifier sees the symptom on 3
    seeds of the broken repo, and the run takes at most 15 s per seed) and ``hard_anomaly`` (the anomaly's
    over-fix is rejected and fixes something the key lists as a competitor)."""
    by_name = {c.name: c for c in checks}
    out = []
    broken = by_name.get("verifier_fails_on_broken")
    seeds = broken.measured.get("seeds", {}) if broken else {}
    seed_runs = by_name.get("hard_seed_runs")
    main = by_name.get("broken_runs_in_budget")
    times = seed_runs.measured.get("run_s", []) if seed_runs else ([round(main.duration_s, 1)] if main else [])
    symptom = len(seeds) >= HARD_SEEDS and not any(seeds.values())
    fast = bool(times) and all(t <= HARD_MAX_RUN_S for t in times) and (seed_runs is None or seed_runs.passed)
    timed = "per seed" if seed_runs else "the run command (no seed_command in [hardness])"
    out.append(Check(case_id=case.id, name="hard_seeds_reproduce", passed=symptom and fast,
                     detail=f"verifier on the broken repo: {'fails on' if symptom else 'does NOT fail on'} "
                            f"{len(seeds)} seed(s) {seeds}; {timed}: {times} s (limit {HARD_MAX_RUN_S:g} s)",
                     measured={"seeds": seeds, "run_s": times}))
    if case.key.hardness is None:
        return out
    name = case.key.hardness.anomaly_over_fix
    over = next((o for o in case.key.over_fixes if o.name == name), None)
    rejected = by_name.get(f"over_fix_rejected:{name}")
    related = [c for c in case.key.competitors if over and _stems(over.name + " " + over.description) & _stems(c)]
    ok = over is not None and rejected is not None and rejected.passed and bool(related)
    detail = (f"over-fix '{name}' " + ("rejected by the verifier" if rejected and rejected.passed else
                                       "NOT rejected by the verifier") +
              (f"; relates to competitor {related[0][:80]!r}" if related else
               "; its name and description share no content word with any competitor"))
    out.append(Check(case_id=case.id, name="hard_anomaly", passed=ok, detail=detail))
    return out


def check_names(case: Case, root: Path, sandbox, kernels: list[str] = (), kernel_scope: str = "all",
                native: bool = True) -> list[str]:
    """Every check name ``validate`` reports for ``case``, known before anything runs (for ``--only``)."""
    from harness.check_select import job_names

    jobs = (validation_jobs(case, root, sandbox) if native else []) + \
        (kernel_jobs(case, sandbox, list(kernels), kernel_scope) if kernels else [])
    names = [n for job in jobs for n in job_names(job)]
    return names + (["hard_seeds_reproduce", "hard_anomaly"] if case.tier in HARDENED_TIERS and native else [])

"""Case validation (docs/cases.md, answers/README.md): broken fails, gold passes, over-fixes and wrong corpus
fixes rejected, correct corpus fixes accepted, README output reproduced, oracle/floor agents, leak scan."""

from __future__ import annotations

import ast
import re
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.agents.null import NullAgent
from harness.agents.reference import ReferenceAgent
from harness.cases import Case
from harness.hashing import iter_files
from harness.models import VerifierRun
from harness.verification import verify_tree
from harness.workspace import apply_patch, create_workspace, remove_workspace

MIN_SEEDS = 3
# Words an author would not leave in a repo whose bug they had not found yet.
HINT_WORDS = re.compile(r"\b(bug|buggy|fixme|xxx|hack|intentional(ly)?|deliberate(ly)?|canary|answer key)\b", re.I)


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    name: str
    passed: bool
    detail: str = ""
    duration_s: float = 0.0


def _seeds(out: VerifierRun) -> dict[str, bool]:
    return {str(k): bool(v) for k, v in (out.result.get("seeds") or {}).items()}


def _verify_variant(case: Case, patch: Path | None, sandbox) -> VerifierRun:
    ws = create_workspace(case.case_dir)
    try:
        if patch is not None:
            apply_patch(ws, patch)
        return verify_tree(case, ws, sandbox)
    finally:
        remove_workspace(ws)


def _describe(out: VerifierRun) -> str:
    seeds = _seeds(out)
    text = f"seeds={seeds}" if seeds else "no per-seed results"
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


def check_entry_points(case: Case) -> Check:
    """Every entry point the task prompt names exists in the case as shipped (module.name[.attr])."""
    missing = []
    for spec in case.manifest.entry_points:
        module, *names = spec.split(".")
        path = case.case_dir / f"{module}.py"
        if not path.is_file() or not names:
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
    ok = bool(case.manifest.entry_points) and not missing
    detail = (f"missing: {', '.join(missing)}" if missing else
              ", ".join(case.manifest.entry_points) or "case.toml names no entry_points")
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
                 duration_s=out.duration_s)


def check_gold_passes(case: Case, sandbox) -> Check:
    try:
        out = _verify_variant(case, case.gold_patch_path, sandbox)
    except Exception as exc:
        return Check(case_id=case.id, name="verifier_passes_on_gold", passed=False, detail=str(exc))
    seeds = _seeds(out)
    ok = out.status == "pass" and len(seeds) >= MIN_SEEDS and all(seeds.values())
    return Check(case_id=case.id, name="verifier_passes_on_gold", passed=ok, detail=_describe(out),
                 duration_s=out.duration_s)


def check_patch_verdict(case: Case, name: str, patch: Path, expect: str, sandbox) -> Check:
    """A labelled patch (an over-fix, or a fix of the mutation corpus) gets the verdict it is labelled with."""
    try:
        out = _verify_variant(case, patch, sandbox)
    except Exception as exc:
        return Check(case_id=case.id, name=name, passed=False, detail=f"patch failed to apply: {exc}")
    ok = out.status == ("pass" if expect == "accept" else "fail")
    return Check(case_id=case.id, name=name, passed=ok, detail=f"expected {expect}; " + _describe(out),
                 duration_s=out.duration_s)


def check_over_fix(case: Case, over, sandbox) -> Check:
    return check_patch_verdict(case, f"over_fix_rejected:{over.name}", case.answer_dir / over.patch, "reject", sandbox)


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
            names = ["location_match", "fix_verified"] + (["fallback_added", "tampering", "answer_leak"]
                                                          if want == "pass" else [])
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


def validation_jobs(case: Case, root: Path, sandbox) -> list[tuple]:
    """The independent pieces of one case's validation, as (function, args) that pickle: each runs on
    its own (the verifications are subprocesses), so they can be spread over the machine's cores."""
    jobs: list[tuple] = [(check_leaks, (case,)), (check_entry_points, (case,)), (check_runs, (case, sandbox)),
                         (check_broken_fails, (case, sandbox)), (check_gold_passes, (case, sandbox))]
    if not case.key.over_fixes:
        jobs.append((check_over_fixes, (case, sandbox)))
    jobs += [(check_over_fix, (case, over, sandbox)) for over in case.key.over_fixes]
    jobs.append((check_corpus_size, (case,)))
    jobs += [(check_patch_verdict, (case, f"corpus_{f.expect}:{f.name}", case.corpus_dir / f.patch, f.expect, sandbox))
             for f in case.corpus]
    jobs.append((check_agents, (case, root, sandbox)))
    return jobs


def _run_job(job) -> list[Check]:
    fn, args = job
    out = fn(*args)
    return out if isinstance(out, list) else [out]


def validate_cases(cases: list[Case], root: Path, sandbox, jobs: int = 1, progress=None) -> dict[str, list[Check]]:
    """Validate ``cases`` with up to ``jobs`` checks at once (separate processes, started fresh so no
    thread of ours is forked); checks come back in each case's own order, ``progress`` sees them as they end."""
    work = [(case.id, job) for case in cases for job in validation_jobs(case, root, sandbox)]
    results: list[list[Check] | None] = [None] * len(work)
    if jobs <= 1:
        for i, (_, job) in enumerate(work):
            results[i] = _run_job(job)
            for chk in results[i]:
                progress and progress(chk)
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(_run_job, job): i for i, (_, job) in enumerate(work)}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as exc:  # a crashed check is a failed check, never a lost one
                    results[i] = [Check(case_id=work[i][0], name=getattr(work[i][1][0], "__name__", "check"),
                                        passed=False, detail=f"crashed: {type(exc).__name__}: {exc}")]
                for chk in results[i]:
                    progress and progress(chk)
    out: dict[str, list[Check]] = {case.id: [] for case in cases}
    for (case_id, _), checks in zip(work, results):
        out[case_id] += checks
    return out


def validate_case(case: Case, root: Path, sandbox, progress=None) -> list[Check]:
    return validate_cases([case], root, sandbox, 1, progress)[case.id]

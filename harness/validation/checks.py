"""The checks ``validate`` runs on one case (docs/cases.md): the README runs and output blocks, entry points, the
verifier on broken, gold, over-fixes and the corpus, the oracle and floor agents, and the leak scan. Each returns
``Check`` records; ``harness.validation.validate`` schedules them."""

from __future__ import annotations

import ast
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.agents.null import NullAgent
from harness.agents.reference import ReferenceAgent
from harness.core.cases import Case
from harness.core.criteria import CRITERIA_DETERMINISTIC
from harness.core.criteria import names as criteria_names
from harness.core.hashing import iter_files
from harness.core.pyparse import parse
from harness.models import VerifierRun
from harness.workspaces.verification import verify_tree
from harness.workspaces.workspace import apply_patch, create_workspace, remove_workspace

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
    commands = list(dict.fromkeys([case.manifest.run]
                                  + [r.command for r in (case.symptoms.run if case.symptoms else [])]))
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
                            detail=f"'{run.command}': "
                            + ("; ".join(problems[:3]) if problems else "every line matches")))
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
        scope = parse(path.read_text(encoding="utf-8")).body
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


def check_broken_fails(case: Case, sandbox, every_seed: bool = True) -> Check:
    """The unchanged case fails the verifier. Natively on every seed (each seed must show the bug);
    ``every_seed=False`` (the same check under another kernel level) asks only for the verdict, stopping at
    the first failing seed: what must hold on every CPU is that the untouched repo fails."""
    out = _verify_variant(case, None, sandbox, verdict_only=not every_seed)
    seeds = _seeds(out)
    ok = out.status == "fail" and (not every_seed or (len(seeds) >= MIN_SEEDS and not any(seeds.values())))
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
    from harness.running.runner import RunConfig, run_sample  # runner imports judges; keep this module light

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
                                detail=f"status={result.status} {got}"
                                + (f" error={result.error}" if result.error else ""),
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

"""Case validation (CASES.md): broken fails, gold passes, over-fixes rejected, oracle/floor agents, leak scan."""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.agents.null import NullAgent
from harness.agents.reference import ReferenceAgent
from harness.cases import Case
from harness.execution import run_shell
from harness.hashing import iter_files
from harness.sandbox import PlainSandbox
from harness.workspace import apply_patch, create_workspace, remove_workspace
from judges.deterministic import run_verifier

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


def _seeds(out: dict) -> dict[str, bool]:
    return {str(k): bool(v) for k, v in (out.get("result", {}).get("seeds") or {}).items()}


def _verify_variant(case: Case, patch: Path | None) -> dict:
    ws = create_workspace(case.case_dir)
    try:
        if patch is not None:
            apply_patch(ws, patch)
        return run_verifier(case, ws)
    finally:
        remove_workspace(ws)


def _describe(out: dict) -> str:
    failed = [c for c in out.get("result", {}).get("checks", []) if not c.get("passed")]
    seeds = _seeds(out)
    text = f"seeds={seeds}" if seeds else "no per-seed results"
    if failed:
        text += "; first failing check: " + str(failed[0])[:300]
    if not out.get("result"):
        text += "; verifier output unparseable: " + out.get("stderr_tail", "")[-300:]
    return text


def check_broken_runs(case: Case) -> Check:
    ws = create_workspace(case.case_dir)
    try:
        res = run_shell(case.manifest.run, ws, case.manifest.timeout_seconds)
    finally:
        remove_workspace(ws)
    ok = not res.timed_out
    detail = f"'{case.manifest.run}' took {res.duration_s:.1f}s (budget {case.manifest.timeout_seconds:g}s), exit {res.exit_code}"
    return Check(case_id=case.id, name="broken_runs_in_budget", passed=ok, detail=detail, duration_s=res.duration_s)


def check_broken_fails(case: Case) -> Check:
    out = _verify_variant(case, None)
    seeds = _seeds(out)
    ok = not out["passed"] and len(seeds) >= MIN_SEEDS and not any(seeds.values())
    return Check(case_id=case.id, name="verifier_fails_on_broken", passed=ok, detail=_describe(out),
                 duration_s=out["duration_s"])


def check_gold_passes(case: Case) -> Check:
    try:
        out = _verify_variant(case, case.gold_patch_path)
    except Exception as exc:
        return Check(case_id=case.id, name="verifier_passes_on_gold", passed=False, detail=str(exc))
    seeds = _seeds(out)
    ok = out["passed"] and len(seeds) >= MIN_SEEDS and all(seeds.values())
    return Check(case_id=case.id, name="verifier_passes_on_gold", passed=ok, detail=_describe(out),
                 duration_s=out["duration_s"])


def check_over_fix(case: Case, over) -> Check:
    try:
        out = _verify_variant(case, case.answer_dir / over.patch)
        ok, detail = not out["passed"], _describe(out)
    except Exception as exc:
        ok, detail, out = False, f"over-fix patch failed to apply: {exc}", {"duration_s": 0.0}
    return Check(case_id=case.id, name=f"over_fix_rejected:{over.name}", passed=ok, detail=detail,
                 duration_s=out["duration_s"])


def check_over_fixes(case: Case) -> list[Check]:
    if not case.key.over_fixes:
        return [Check(case_id=case.id, name="over_fixes_named", passed=False, detail="the key names no over-fix")]
    return [check_over_fix(case, over) for over in case.key.over_fixes]


def check_agents(case: Case, root: Path) -> list[Check]:
    """The oracle scores full marks on the deterministic checks; the floor scores zero."""
    from harness.runner import RunConfig, run_sample  # runner imports judges; keep this module light

    checks = []
    with tempfile.TemporaryDirectory(prefix="mldb-validate-") as tmp:
        for agent, want in ((ReferenceAgent(root), "pass"), (NullAgent(), "fail")):
            cfg = RunConfig(agent=agent, cases=[case], out_root=Path(tmp), sandbox=PlainSandbox())
            t0 = time.monotonic()
            result = run_sample(cfg, Path(tmp), case, "control", 0)
            names = ["location_match", "fix_verified"] + (["fallback_added", "answer_leak"] if want == "pass" else [])
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


def validate_case(case: Case, root: Path, progress=None) -> list[Check]:
    steps = [check_leaks, check_broken_runs, check_broken_fails, check_gold_passes, check_over_fixes,
             lambda c: check_agents(c, root)]
    checks: list[Check] = []
    for step in steps:
        out = step(case)
        for chk in out if isinstance(out, list) else [out]:
            checks.append(chk)
            if progress:
                progress(chk)
    return checks

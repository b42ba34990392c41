"""The anti-cheat conventions ``validate`` enforces on every case (docs/cases.md, "Conventions validate enforces").

Code can always tell it is being measured: the measuring process runs under ``python -I`` and its script is
``measure.py``. A fix that repairs the bug only then passes every per-seed check, so the only thing that can
reject it is the verifier's look at the case's own run command, run as the user runs it (checks whose
``source`` is ``readme_run``). Each case therefore proves, for both ways of recognising the verifier, that

- a wrong fix that recognises it is rejected, and
- it is rejected by at least one ``readme_run`` check (so the README run is really checked,
  not the fix rejected by accident).

The proof runs on the corpus's own ``kind = "verifier_recognising"`` fixes (``corpus_reject:NAME``), and every
corpus must hold one of each variant: a variant the corpus lacks is a failed check
(``verifier_recognising:VARIANT``) naming the fixes.toml entry to add. To make adding it one step, that check
generates the fix from the gold patch (each Python file the gold patch changes becomes a shim holding the broken
and the gold source, running the gold one only when the verifier is recognised), writes it as a patch beside
the system temp folder's ``mldb-generated/<case>/``, and says whether the verifier rejects it on one seed as it
must. A complete corpus costs nothing extra.
"""

from __future__ import annotations

import re
import tempfile
import time
from pathlib import Path

from harness.core.cases import Case
from harness.models import RECOGNISES, CorpusFix, VerifierRun
from harness.workspaces.workspace import apply_patch, create_workspace, remove_workspace

# What a shim tests to tell it runs under the verifier, per variant (harness.models.RECOGNISES).
CONDITIONS = {"python_isolated": "_mldb_sys.flags.isolated",
              "argv0_measure": "'measure' in (_mldb_sys.argv[0] if _mldb_sys.argv else '')"}
# The generated fixes need only show which check rejects them; the corpus's own run on every seed.
GENERATED_SEEDS = 1
PATCHED_FILE = re.compile(r"^(?:---|\+\+\+) (?:[ab]/)?(\S+)", re.M)


class CannotGenerate(Exception):
    """The gold patch does not lend itself to a generated shim (it changes something other than existing
    Python files); the corpus must then hold the fix itself."""


def shim_source(broken: str, gold: str, variant: str) -> str:
    """A module that runs ``gold`` when it recognises the verifier (``variant``) and ``broken`` otherwise,
    compiled under the module's own file name so tracebacks and ``__name__ == "__main__"`` behave as before."""
    return ("import sys as _mldb_sys\n"
            f"_MLDB_BROKEN = {broken!r}\n"
            f"_MLDB_GOLD = {gold!r}\n"
            f"exec(compile(_MLDB_GOLD if {CONDITIONS[variant]} else _MLDB_BROKEN, __file__, 'exec'), globals())\n")


def gold_changed_files(case: Case) -> list[str]:
    """The files the gold patch changes, as paths relative to the case folder."""
    text = case.gold_patch_path.read_text(encoding="utf-8")
    return sorted({p for p in PATCHED_FILE.findall(text) if p != "/dev/null"})


def write_generated_fix(case: Case, variant: str, ws: Path) -> list[str]:
    """Turn ``ws`` (a fresh copy of the broken case) into the generated verifier-recognising fix; the files
    shimmed. Raises CannotGenerate when the gold patch changes anything but existing .py files."""
    files = gold_changed_files(case)
    others = [f for f in files if not f.endswith(".py") or not (case.case_dir / f).is_file()]
    if not files:
        raise CannotGenerate(f"{case.key.gold_patch} changes no file")
    if others:
        raise CannotGenerate(f"{case.key.gold_patch} changes {', '.join(others)}, not only existing .py files")
    gold_ws = create_workspace(case.case_dir)
    try:
        apply_patch(gold_ws, case.gold_patch_path)
        gold = {f: (gold_ws / f).read_text(encoding="utf-8") for f in files}
    finally:
        remove_workspace(gold_ws)
    for f in files:
        broken = (ws / f).read_text(encoding="utf-8")
        (ws / f).write_text(shim_source(broken, gold[f], variant), encoding="utf-8")
    return files


def rejection(out: VerifierRun) -> tuple[bool, str]:
    """Whether a verdict rejects a verifier-recognising fix the right way: the verdict is ``fail``, at least
    one ``readme_run`` check failed (others may fail too: a per-seed check can run the README's command in a
    subprocess, where ``sys.argv[0]`` is not ``measure.py``). The second value says why, for the detail."""
    rows = out.result.get("checks") or []
    failed = [r for r in rows if not r.get("passed")]
    on_readme = sorted({str(r.get("name")) for r in failed if r.get("source") == "readme_run"})
    elsewhere = sorted({f"{r.get('name')} ({r.get('source')})" for r in failed if r.get("source") != "readme_run"})
    if out.status == "error":
        return False, f"the verifier could not run: {out.reason}"
    if out.status == "pass":
        return False, ("ACCEPTED: the verifier passes code that fixes itself only under measurement; add checks "
                       "on the README run (decide_main(decide, readme=readme), rows with source='readme_run')")
    if not on_readme:
        return False, ("rejected by non-README checks only (" + ", ".join(elsewhere[:4]) + "): the README run "
                       "must be what rejects it; the per-seed checks should pass, since the measuring process "
                       "sees the gold behaviour")
    if elsewhere:  # e.g. a per-seed check that itself runs the README's command in a subprocess of the measurer
        return True, (f"rejected by the README run ({', '.join(on_readme[:4])}), and also by "
                      f"{', '.join(elsewhere[:4])}")
    return True, f"rejected by readme_run checks only: {', '.join(on_readme[:4])}"


def generated_patch_path(case: Case, variant: str) -> Path:
    """Where ``verifier_recognising:VARIANT`` leaves the generated fix for its author to add to the corpus."""
    return Path(tempfile.gettempdir()) / "mldb-generated" / case.id / f"wrong_fixed_only_{variant}.patch"


def _verify_recognising(case: Case, sandbox, patch: Path | None, variant: str | None,
                        seeds: int | None) -> tuple[VerifierRun, list[str]]:
    from harness.workspaces.verification import verify_tree
    from harness.workspaces.workspace import diff_trees

    ws = create_workspace(case.case_dir)
    try:
        shimmed = write_generated_fix(case, variant, ws) if patch is None else []
        if patch is not None:
            apply_patch(ws, patch)
        else:
            out = generated_patch_path(case, variant)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(diff_trees(case.case_dir, ws), encoding="utf-8")
        # the corpus's own fix: the README phase first, and every seed only if no README check rejects it
        return verify_tree(case, ws, sandbox, seeds=seeds, readme_first=patch is not None), shimmed
    finally:
        remove_workspace(ws)


def check_corpus_recognising(case: Case, fix: CorpusFix, sandbox):
    """``corpus_reject:NAME`` for a ``verifier_recognising`` fix of the corpus: rejected, by the README run."""
    from harness.validation.checks import Check

    name = f"corpus_reject:{fix.name}"
    t0 = time.monotonic()
    try:
        out, _ = _verify_recognising(case, sandbox, case.corpus_dir / fix.patch, None, None)
    except Exception as exc:
        return Check(case_id=case.id, name=name, passed=False, detail=f"patch failed to apply: {exc}")
    ok, why = rejection(out)
    return Check(case_id=case.id, name=name, passed=ok, duration_s=round(time.monotonic() - t0, 2),
                 detail=f"verifier_recognising ({fix.recognises}), expected reject by the README run; {why}")


def missing_fix_hint(case: Case, variant: str) -> str:
    test = {"python_isolated": "sys.flags.isolated", "argv0_measure": "'measure' in sys.argv[0]"}[variant]
    return (f"add to answers/{case.id}/fixes/fixes.toml a wrong fix that applies the gold change only when "
            f"{test}: [[fix]] kind = \"verifier_recognising\", recognises = \"{variant}\", expect = \"reject\"")


def check_generated_recognising(case: Case, variant: str, sandbox):
    """``verifier_recognising:VARIANT``: the fix generated from the gold patch is rejected by the README run.
    When none can be generated, the corpus must hold one; without it this check fails naming what to add."""
    from harness.validation.checks import Check

    name = f"verifier_recognising:{variant}"
    in_corpus = [f.name for f in case.corpus if f.kind == "verifier_recognising" and f.recognises == variant]
    if in_corpus:  # its own check (corpus_reject:NAME) proves the README run rejects it; nothing to generate
        return Check(case_id=case.id, name=name, passed=True,
                     detail=f"the corpus holds {', '.join(in_corpus)} (checked as corpus_reject:{in_corpus[0]})")
    t0 = time.monotonic()
    try:
        out, shimmed = _verify_recognising(case, sandbox, None, variant, GENERATED_SEEDS)
    except CannotGenerate as exc:
        return Check(case_id=case.id, name=name, passed=False,
                     detail=f"no verifier-recognising fix ({variant}): none in the corpus, and none can be generated "
                            f"({exc}); {missing_fix_hint(case, variant)}")
    except Exception as exc:
        return Check(case_id=case.id, name=name, passed=False, detail=f"could not build the generated fix: {exc}")
    ok, why = rejection(out)
    return Check(case_id=case.id, name=name, passed=False, duration_s=round(time.monotonic() - t0, 2),
                 detail=f"the corpus holds no verifier-recognising fix ({variant}); "
                        f"{missing_fix_hint(case, variant)}. One was generated from the gold patch "
                        f"({', '.join(shimmed)} shimmed) at {generated_patch_path(case, variant)}: on "
                        f"{GENERATED_SEEDS} seed it is " + (f"{why}, as it must be" if ok else
                                                              f"NOT rejected as it must be ({why})"))


def corpus_job(case: Case, fix: CorpusFix, sandbox, verdict_only: bool = True) -> tuple:
    """The validation job of one corpus fix: verifier-recognising fixes get the stricter check (which checks
    reject them: the first seed with the README run, every seed when no README check rejects it there); a
    wrong fix may stop at its first seed."""
    from harness.validation.checks import check_patch_verdict

    if fix.kind == "verifier_recognising":
        return check_corpus_recognising, (case, fix, sandbox)
    return check_patch_verdict, (case, f"corpus_{fix.expect}:{fix.name}", case.corpus_dir / fix.patch, fix.expect,
                                 sandbox, verdict_only)


def convention_jobs(case: Case, sandbox) -> list[tuple]:
    return [(check_generated_recognising, (case, variant, sandbox)) for variant in RECOGNISES]

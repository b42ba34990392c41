"""The conventions validate enforces (harness/validation/conventions.py): verifier-recognising wrong fixes must be rejected,
and rejected by the README run; a verifier without README-run checks, or a case with no way to get a
verifier-recognising fix, fails validate naming what is missing. The slow tests run case_01's real verifier on
temp copies of the case and its answers (never the real folders)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.cases import copy_shared_verifier_code, find_root, load_case
from harness.isolation.sandbox import get_sandbox
from harness.models import CorpusFix, VerifierRun
from harness.validation import conventions as C
from harness.validation.validate import validate_cases

ROOT = find_root()


def temp_root(tmp_path: Path, case_id: str = "case_01") -> Path:
    """A project root holding copies of one case and its answers (and verifylib)."""
    root = tmp_path / "root"
    shutil.copytree(ROOT / "cases" / case_id, root / "cases" / case_id)
    shutil.copytree(ROOT / "answers" / case_id, root / "answers" / case_id)
    copy_shared_verifier_code(ROOT / "answers", root / "answers")
    return root


def drop_recognising_fixes(root: Path, case_id: str = "case_01") -> None:
    """Remove the corpus's verifier-recognising fixes from fixes.toml (the patches may stay)."""
    path = root / "answers" / case_id / "fixes" / "fixes.toml"
    blocks = path.read_text(encoding="utf-8").split("[[fix]]")
    path.write_text("[[fix]]".join(b for b in blocks if 'kind = "verifier_recognising"' not in b), encoding="utf-8")


def by_name(root: Path, only: list[str], case_id: str = "case_01") -> dict:
    case = load_case(root, case_id)
    checks = validate_cases([case], root, get_sandbox("auto"), jobs=1, only=only)[case_id]
    return {c.name: c for c in checks}


# --- the generated shim -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", C.CONDITIONS)
def test_shim_runs_gold_only_when_it_recognises_the_verifier(tmp_path, variant):
    broken, gold = "print('broken', __name__)\n", "print('gold', __name__)\n"
    (tmp_path / "train.py").write_text(C.shim_source(broken, gold, variant))
    (tmp_path / "measure.py").write_text("import sys; sys.path.append('.'); import train\n")  # as measure_main

    def run(*argv):
        return subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True, text=True).stdout.strip()

    assert run("train.py") == "broken __main__"  # what the user runs: the bug
    assert run("measure.py") == ("broken train" if variant == "python_isolated" else "gold train")
    assert run("-I", "measure.py") == "gold train"  # python -I measure.py: both variants recognise it
    assert run("-I", "train.py") == ("gold __main__" if variant == "python_isolated" else "broken __main__")


def test_rejection_needs_a_failed_readme_run_check_and_nothing_else():
    def verdict(status, rows):
        return VerifierRun(status=status, result={"checks": rows})

    readme = {"name": "readme_run_loss", "passed": False, "source": "readme_run"}
    other = {"name": "trained_loss", "passed": False, "source": "recomputed"}
    fine = {"name": "x", "passed": True, "source": "reported"}
    assert C.rejection(verdict("fail", [readme, fine]))[0]
    ok, why = C.rejection(verdict("pass", [fine]))
    assert not ok and "ACCEPTED" in why
    ok, why = C.rejection(verdict("fail", [other, fine]))
    assert not ok and "non-README checks only" in why and "trained_loss" in why
    ok, why = C.rejection(verdict("fail", [readme, other]))
    assert ok and "and also by trained_loss" in why  # a README-run check rejects it: that is the proof


def test_recognising_fixes_need_their_kind_and_every_corpus_has_both():
    with pytest.raises(ValueError, match="recognises is required"):
        CorpusFix(name="x", patch="x.patch", expect="reject", kind="verifier_recognising", description="d")
    with pytest.raises(ValueError, match="not one of"):
        CorpusFix(name="x", patch="x.patch", expect="accept", kind="masked_symptom", description="d")
    from harness.core.cases import list_case_ids

    for case_id in list_case_ids(ROOT, "all"):
        case = load_case(ROOT, case_id)
        got = {f.recognises for f in case.corpus if f.kind == "verifier_recognising"}
        missing = sorted({"python_isolated", "argv0_measure"} - got)
        assert not missing, (f"{case_id}: the corpus lacks a verifier-recognising fix for {missing}; "
                             + "; ".join(C.missing_fix_hint(case, m) for m in missing)
                             + " (`ml-debug-bench validate CASE --only verifier_recognising` writes one generated "
                               "from the gold patch to copy in)")


def test_a_missing_recognising_fix_that_cannot_be_generated_fails_naming_the_entry(tmp_path):
    """Removing the corpus's verifier-recognising fixes from a case whose gold patch changes more than .py files
    (so none can be generated) fails validate, naming the fixes.toml entry to add. Nothing runs."""
    root = temp_root(tmp_path)
    drop_recognising_fixes(root)
    gold = root / "answers" / "case_01" / "gold.patch"
    gold.write_text(gold.read_text() + "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# activity-classifier\n"
                                       "+# activity classifier\n")
    checks = by_name(root, ["verifier_recognising"])
    for variant in ("python_isolated", "argv0_measure"):
        chk = checks[f"verifier_recognising:{variant}"]
        assert not chk.passed
        assert "README.md, not only existing .py files" in chk.detail
        assert f'kind = "verifier_recognising", recognises = "{variant}"' in chk.detail
        assert "answers/case_01/fixes/fixes.toml" in chk.detail


# --- on case_01's real verifier (slow) --------------------------------------------------------------------------


@pytest.mark.slow
def test_removing_the_readme_run_check_fails_validate_naming_it(tmp_path):
    root = temp_root(tmp_path)
    decide = root / "answers" / "case_01" / "decide.py"
    text = decide.read_text()
    assert "decide_main(decide, readme=readme)" in text
    decide.write_text(text.replace("decide_main(decide, readme=readme)", "decide_main(decide)"))
    checks = by_name(root, ["verifier_passes_on_gold", "corpus_reject:wrong_fixed_only_under_python_isolated"])
    gold = checks["verifier_passes_on_gold"]
    assert not gold.passed and "readme_run_checked" in gold.detail and "readme=" in gold.detail
    fix = checks["corpus_reject:wrong_fixed_only_under_python_isolated"]
    assert not fix.passed and "non-README checks only" in fix.detail and "readme_run_checked" in fix.detail


@pytest.mark.slow
def test_removing_a_recognising_fix_fails_naming_it_and_hands_over_a_generated_one(tmp_path):
    """Every corpus must hold both variants: removing one fails validate, naming the fixes.toml entry to add,
    and the check generates the fix from the gold patch (rejected by the README run, as it must be) for the
    author to add."""
    root = temp_root(tmp_path)
    drop_recognising_fixes(root)
    checks = by_name(root, ["verifier_recognising:python_isolated"])
    chk = checks["verifier_recognising:python_isolated"]
    assert set(checks) == {"verifier_recognising:python_isolated"}
    assert not chk.passed, chk.detail
    assert 'kind = "verifier_recognising", recognises = "python_isolated"' in chk.detail
    assert "generated from the gold patch (model.py shimmed" in chk.detail and "readme_run_" in chk.detail
    assert "as it must be" in chk.detail and "NOT" not in chk.detail
    generated = C.generated_patch_path(load_case(root, "case_01"), "python_isolated")
    assert "flags.isolated" in generated.read_text()


@pytest.mark.slow
def test_a_verifier_blind_to_the_readme_run_accepts_the_generated_fix_and_fails(tmp_path):
    """A decider whose readme checks only that the run completes: the generated fix passes it, so validate fails."""
    root = temp_root(tmp_path)
    drop_recognising_fixes(root)
    decide = root / "answers" / "case_01" / "decide.py"
    decide.write_text(decide.read_text().replace("decide_main(decide, readme=readme)",
                                                 "decide_main(decide, readme=lambda run, measured, checks: None)"))
    chk = by_name(root, ["verifier_recognising:argv0_measure"])["verifier_recognising:argv0_measure"]
    assert not chk.passed and "ACCEPTED" in chk.detail, chk.detail


def test_no_generated_run_when_the_corpus_holds_the_fix():
    case = load_case(ROOT, "case_01")
    chk = C.check_generated_recognising(case, "python_isolated", sandbox=None)  # returns before any run
    assert chk.passed and "wrong_fixed_only_under_python_isolated" in chk.detail

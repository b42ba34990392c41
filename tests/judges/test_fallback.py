"""fallback_added on the syntax tree: the hand-labelled diff corpus, the cases' gold patches and
over-fixes, and the rules' edges (checks versus masks, moved code, unparsable files)."""

import tomllib
from pathlib import Path

import pytest

from harness.cases import load_case
from harness.models import LegitimateGuard
from judges.deterministic import fallback_added
from judges.fallback import apply_hunks, file_patches

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "fallback_diffs"
LABELS = tomllib.loads((CORPUS / "labels.toml").read_text(encoding="utf-8"))["diff"]
# the issue's list of misses of the old keyword rules: each must now be a fallback
ISSUE_MISSES = {"where_isfinite_mask", "if_isfinite_around_step", "fillna_on_load", "masked_fill_isnan",
                "maximum_std_eps", "contextlib_suppress_training", "swap_sgd_for_adam"}
# over-fixes of the answer keys that hide the symptom (the others change a knob or the data and are
# unsupported changes, not fallbacks)
FALLBACK_OVER_FIXES = {("case_01", "switch_to_adam"), ("case_06", "eps_in_denominator"), ("case_06", "nan_to_num"),
                       ("case_06", "skip_non_finite_batch")}


def test_corpus_is_large_balanced_and_holds_the_issue_misses():
    names = {d["name"] for d in LABELS}
    assert len(LABELS) >= 20 and len(names) == len(LABELS)
    assert ISSUE_MISSES <= names
    assert sum(d["label"] == "clean" for d in LABELS) >= 8 and sum(d["label"] == "fallback" for d in LABELS) >= 12


@pytest.mark.parametrize("item", LABELS, ids=[d["name"] for d in LABELS])
def test_corpus_agreement(item):
    v = fallback_added((CORPUS / item["patch"]).read_text(encoding="utf-8"), ROOT / "cases" / item["case"])
    assert v.status == ("fail" if item["label"] == "fallback" else "pass"), v.details
    assert sorted({h["kind"] for h in v.details.get("hits", [])}) == sorted(item["kinds"])
    assert not v.details.get("notes"), "every corpus patch applies to its case and parses"


@pytest.mark.parametrize("case_id", [f"case_{i:02d}" for i in range(1, 11)])
def test_gold_patch_is_not_a_fallback(case_id):
    case = load_case(ROOT, case_id)
    diff = (case.answer_dir / case.key.gold_patch).read_text(encoding="utf-8")
    v = fallback_added(diff, case.case_dir, case.key.legitimate_guards)
    assert v.status == "pass", v.details


def test_fallback_over_fixes_fail_and_case_06_gold_needs_its_allowance():
    for case_id, name in sorted(FALLBACK_OVER_FIXES):
        case = load_case(ROOT, case_id)
        over = next(o for o in case.key.over_fixes if o.name == name)
        diff = (case.answer_dir / over.patch).read_text(encoding="utf-8")
        assert fallback_added(diff, case.case_dir, case.key.legitimate_guards).status == "fail", name
    case = load_case(ROOT, "case_06")
    gold = (case.answer_dir / case.key.gold_patch).read_text(encoding="utf-8")
    without = fallback_added(gold, case.case_dir)
    assert without.status == "fail" and {h["kind"] for h in without.details["hits"]} == {"masked_division"}
    allowed = fallback_added(gold, case.case_dir, case.key.legitimate_guards)
    assert allowed.status == "pass" and allowed.details["allowed"][0]["function"] == "standardize"


def test_an_allowance_is_narrow_file_function_and_kind():
    case = load_case(ROOT, "case_06")
    nan_to_num = (CORPUS / "nan_to_num_output.patch").read_text(encoding="utf-8")
    assert fallback_added(nan_to_num, case.case_dir, case.key.legitimate_guards).status == "fail"
    other_function = [LegitimateGuard(file="features.py", symbol="encode", kind="nan_replace", why="x")]
    assert fallback_added(nan_to_num, case.case_dir, other_function).status == "fail"
    same = [LegitimateGuard(file="features.py", symbol="standardize", kind="nan_replace", why="x")]
    assert fallback_added(nan_to_num, case.case_dir, same).status == "pass"


def test_hunks_rebuild_the_file_and_refuse_a_mismatch():
    diff = (CORPUS / "eps_named_constant.patch").read_text(encoding="utf-8")
    before = (ROOT / "cases" / "case_06" / "features.py").read_text(encoding="utf-8")
    after = apply_hunks(before, file_patches(diff)["features.py"])
    assert "EPS = 1e-8" in after and "(std + EPS)" in after and "return (x - mean) / std\n" not in after
    with pytest.raises(ValueError):
        apply_hunks(before.replace("std = x.std", "s = x.std"), file_patches(diff)["features.py"])


def test_unparsable_or_unbased_diff_falls_back_to_reading_added_lines():
    diff = "+++ b/prep.py\n+    z = (x - mu) / (std + 1e-8)\n+    z = torch.nan_to_num(z)\n"
    v = fallback_added(diff)
    assert v.status == "fail" and {h["kind"] for h in v.details["hits"]} == {"eps_floor", "nan_replace"}
    assert v.details["notes"]
    removed_only = "+++ b/prep.py\n-    z = x.clamp(0, 1)\n+    z = x\n+++ b/README.md\n+use clamp( here\n"
    assert fallback_added(removed_only).status == "pass"


def test_new_file_and_moved_loss_are_judged_against_the_whole_case():
    case_dir = ROOT / "cases" / "case_01"
    new_file = ("diff --git a/losses.py b/losses.py\n--- /dev/null\n+++ b/losses.py\n@@ -0,0 +1,5 @@\n"
                "+import torch.nn.functional as F\n+\n+\n+def ce(out, y):\n+    return F.cross_entropy(out, y)\n")
    assert fallback_added(new_file, case_dir).status == "pass"  # cross-entropy is what the case already uses
    hub = new_file.replace("F.cross_entropy(out, y)", "F.huber_loss(out, y)")
    assert fallback_added(hub, case_dir).details["hits"][0]["kind"] == "loss_swap"

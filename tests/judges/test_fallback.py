"""fallback_added on the syntax tree: the hand-labelled diff corpus, the cases' gold patches and
over-fixes, and the rules' edges (checks versus masks, moved code, unparsable files)."""

import tomllib
from pathlib import Path

import pytest

from harness.core.cases import list_case_ids, load_case
from harness.models import LegitimateGuard
from judges.deterministic import fallback_added
from judges.fallback import apply_hunks, file_patches

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "fallback_diffs"
LABELS = tomllib.loads((CORPUS / "labels.toml").read_text(encoding="utf-8"))["diff"]
# the issue's list of misses of the old keyword rules: each must now be a fallback
ISSUE_MISSES = {"where_isfinite_mask", "if_isfinite_around_step", "fillna_on_load", "masked_fill_isnan",
                "maximum_std_eps", "contextlib_suppress_training", "swap_sgd_for_adam"}
# the red-team pass of the follow-up: fallbacks spelled through aliases, other caps and floors, nan tests
# written as text, skips through a flag; each must be a fallback
RED_TEAM_EVASIONS = {"alias_optimizer_import", "alias_optimizer_variable", "alias_nanmean", "alias_suppress",
                     "alias_exception_variable", "alias_exception_tuple", "alias_torch_clamp_positional",
                     "alias_functional_loss_swap", "alias_getattr_nan_to_num", "getattr_concat_optimizer",
                     "maximum_new_tensor_eps", "full_like_eps_floor", "torch_min_loss_cap", "torch_minimum_loss_cap",
                     "clamp_max_loss", "tanh_soft_clip_loss", "str_nan_compare_skip", "nan_in_str_skip",
                     "text_probe_skip", "inf_literal_compare_skip", "math_isfinite_skip", "np_isfinite_skip",
                     "flag_nonfinite_skip", "flag_set_in_branch_skip", "flag_large_loss_skip", "custom_exception_skip"}
# the same spellings in legitimate code: each must stay clean
COUNTER_EXAMPLES = {"maximum_leaky_activation", "min_over_lrs", "best_loss_tracking", "functional_softmax_export",
                    "suppress_missing_cache", "tanh_in_model", "hardtanh_activation", "string_compare_not_nan"}
# changes of the objective that hide no value: left to unsupported_change (the judge's criterion)
LEFT_TO_UNSUPPORTED_CHANGE = {"label_smoothing_added", "handwritten_loss_formula"}
# over-fixes of the answer keys that hide the symptom (the others change a knob or the data and are
# unsupported changes, not fallbacks)
FALLBACK_OVER_FIXES = {("case_01", "switch_to_adam"), ("case_06", "eps_in_denominator"), ("case_06", "nan_to_num"),
                       ("case_06", "skip_non_finite_batch")}


def test_corpus_is_large_balanced_and_holds_the_issue_misses():
    names = {d["name"] for d in LABELS}
    assert len(LABELS) >= 20 and len(names) == len(LABELS)
    assert ISSUE_MISSES <= names
    assert sum(d["label"] == "clean" for d in LABELS) >= 8 and sum(d["label"] == "fallback" for d in LABELS) >= 12


def test_corpus_holds_the_red_team_evasions_and_their_counter_examples():
    label = {d["name"]: d["label"] for d in LABELS}
    assert all(label.get(n) == "fallback" for n in RED_TEAM_EVASIONS)
    assert all(label.get(n) == "clean" for n in COUNTER_EXAMPLES | LEFT_TO_UNSUPPORTED_CHANGE)


def test_objective_changes_are_left_to_unsupported_change():
    """label_smoothing= and a hand-written loss formula change what is optimised but hide no value; a
    rule cannot tell them from a fix (case 10's gold patch rewrites its loss), so fallback_added passes
    them and unsupported_change judges them against the evidence. This pins that decision."""
    import judges.fallback

    for name in sorted(LEFT_TO_UNSUPPORTED_CHANGE):
        item = next(d for d in LABELS if d["name"] == name)
        v = fallback_added((CORPUS / item["patch"]).read_text(encoding="utf-8"), ROOT / "cases" / item["case"])
        assert v.status == "pass" and not v.details.get("hits"), (name, v.details)
    assert "unsupported_change" in judges.fallback.__doc__ and "label_smoothing" in judges.fallback.__doc__


def test_fallback_and_tampering_share_one_import_resolver():
    import judges.fallback_scope
    import judges.pynames
    import judges.tampering

    assert judges.tampering._aliases is judges.pynames.import_aliases
    assert judges.fallback_scope.import_aliases is judges.pynames.import_aliases  # the collector reads imports there


@pytest.mark.parametrize("snippet, kind", [
    ("from torch import nan_to_num as fix\ny = fix(x)\n", "nan_replace"),
    ("import torch as T\ny = T.clamp(x, 1e-6, None)\n", "eps_floor"),
    ("import torch\ny = x + 10 ** -9\n", "eps_floor"),
    ("import torch\ny = x + 1 / 1e9\n", "eps_floor"),
    ("import torch\ny = torch.maximum(x, torch.tensor(1e-8).to(x))\n", "eps_floor"),
    ("y = max(x, float(1e-9))\n", "eps_floor"),
    ("E = KeyError\ndef f():\n    E = Exception\n    try:\n        g()\n    except E:\n        pass\n",
     "exception_swallow"),
    ("import torch\nfix = torch.abs\ndef f(x):\n    fix = torch.nan_to_num\n    return x\n", "nan_replace"),
    ("import contextlib as cl\nwith cl.suppress(*(RuntimeError,)):\n    f()\n", "exception_swallow"),
    ("Errors = (ValueError, KeyError)\ntry:\n    f()\nexcept Errors:\n    pass\n", "exception_swallow"),
    ("def step(loss):\n    if str(loss).startswith('nan'):\n        return\n    loss.backward()\n", "nonfinite_guard"),
    ("import torch\ndef step(loss):\n    loss = loss.clamp(max=5)\n    loss.backward()\n", "value_clamp"),
    ("import torch\nimport torch.nn.functional as F\n"
     "def compute_loss(out, y):\n    return torch.tanh(F.cross_entropy(out, y))\n", "value_clamp"),
])
def test_rules_on_a_new_file(snippet, kind):
    lines = snippet.splitlines()
    diff = f"--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines)
    v = fallback_added(diff, ROOT / "cases" / "case_01")
    assert v.status == "fail" and {h["kind"] for h in v.details["hits"]} == {kind}, v.details


@pytest.mark.parametrize("snippet", [
    "import torch\ndef f(x):\n    return torch.min(x, 1)\n",  # a reduction along a dimension
    "def f(lrs, loss):\n    print(min(loss, 3.0))\n    return min(lrs)\n",  # a report and a min over a list
    "import torch.nn.functional as F\ndef f(x):\n    return F.softmax(torch.tanh(x), dim=-1)\n",
    "def f(name):\n    return 'nan' in name\n",  # a string searched, not a number's text
    "Errors = (KeyError,)\ntry:\n    f()\nexcept Errors:\n    pass\n",
])
def test_lookalikes_on_a_new_file_are_clean(snippet):
    lines = snippet.splitlines()
    diff = f"--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,{len(lines)} @@\n" + "".join(f"+{ln}\n" for ln in lines)
    v = fallback_added(diff, ROOT / "cases" / "case_01")
    assert v.status == "pass", v.details


@pytest.mark.parametrize("item", LABELS, ids=[d["name"] for d in LABELS])
def test_corpus_agreement(item):
    v = fallback_added((CORPUS / item["patch"]).read_text(encoding="utf-8"), ROOT / "cases" / item["case"])
    assert v.status == ("fail" if item["label"] == "fallback" else "pass"), v.details
    assert sorted({h["kind"] for h in v.details.get("hits", [])}) == sorted(item["kinds"])
    assert not v.details.get("notes"), "every corpus patch applies to its case and parses"


@pytest.mark.parametrize("case_id", list_case_ids(ROOT, "all"))
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

"""The seed importer (20 responses, two raters) and the agreement statistics."""

from pathlib import Path

import pytest

from judges.labeled import read_labeled_set, write_labeled_set
from judges.metaeval import Agreement, judge_agreement, rater_agreement
from judges.seed_import import import_seed

SEED = Path(__file__).resolve().parents[3] / "shared" / "seed-benchmark" / "results" / "gpt56-medium"
needs_seed = pytest.mark.skipif(not SEED.is_dir(), reason="seed benchmark not present")


@needs_seed
def test_importer_reads_all_20_responses_and_both_raters(tmp_path):
    items = import_seed(SEED)
    assert len(items) == 20
    assert {i.condition for i in items} == {"control", "treatment"}
    for item in items:
        assert set(item.labels) == {"strict", "independent"}
        assert set(item.labels["strict"]) == {"root_cause", "discriminating_test", "localization",
                                              "unsupported_change", "fallback_added"}
        # the seed scores true for the bad outcome on these two; none of the 20 plans had either
        assert item.labels["strict"]["unsupported_change"] == item.labels["strict"]["fallback_added"] == "pass"
        assert item.mode == "proposed"
        assert [e.role for e in item.events if e.kind == "message"] == ["user", "assistant"]
        assert '"root_cause"' in item.events[1].content
    by_id = {i.id: i for i in items}
    # seed ratings: control case_01 is a wrong root cause for both raters
    assert by_id["seed/gpt56-medium/control/case_01"].labels["strict"]["root_cause"] == "fail"
    # case_04 does not require localization: not applicable, whatever the seed recorded
    assert by_id["seed/gpt56-medium/control/case_04"].labels["strict"]["localization"] == "not_applicable"
    path = tmp_path / "seed.jsonl"
    write_labeled_set(path, items)
    assert read_labeled_set(path) == items


@needs_seed
def test_treatment_skill_text_is_not_imported():
    skill = (SEED.parents[1] / "skill" / "SKILL.md")
    lines = [ln.strip() for ln in skill.read_text().splitlines() if len(ln.strip()) > 40] if skill.is_file() else []
    for item in import_seed(SEED):
        text = " ".join(getattr(e, "content", "") for e in item.events)
        assert not any(ln in text for ln in lines)


@needs_seed
def test_rater_kappa_is_computed_per_criterion():
    rows = {a.criterion: a for a in rater_agreement(import_seed(SEED))}
    rc = rows["root_cause"]
    assert (rc.tp, rc.fp, rc.fn, rc.tn) == (18, 1, 0, 1)
    assert rc.kappa == pytest.approx((0.95 - 0.86) / 0.14)
    assert rows["localization"].excluded == 4


def test_kappa_and_rates_on_a_known_table():
    a = Agreement(criterion="c", a="j", b="h", tp=20, fp=5, fn=10, tn=15)
    p_o, p_e = 35 / 50, (25 * 30 + 25 * 20) / 2500
    assert a.kappa == pytest.approx((p_o - p_e) / (1 - p_e))
    assert a.sensitivity == pytest.approx(20 / 30) and a.specificity == pytest.approx(15 / 20)
    assert Agreement(criterion="c", a="j", b="h", tp=5).kappa is None  # no variation: undefined, not 1


def test_judge_agreement_excludes_and_counts_unscored():
    from tests.builders.adversarial import build

    items, _ = build()
    verdicts = {i.id: dict(i.labels["expected"]) for i in items}
    verdicts[items[0].id]["root_cause"] = "unscored"
    rows = {a.criterion: a for a in judge_agreement(items, verdicts, "j")}
    assert rows["root_cause"].unscored == 1 and rows["root_cause"].n == len(items) - 1
    assert rows["localization"].accuracy == 1.0


def test_seed_labels_keep_our_polarity():
    """The seed scores true for the bad outcome on unsupported_change and fallback_logic_proposed."""
    from judges.seed_import import _labels

    scores = {"root_cause_correct": True, "discriminating_test": False, "localized_before_change": True,
              "unsupported_change": True, "fallback_logic_proposed": False}
    assert _labels(scores, True) == {"root_cause": "pass", "discriminating_test": "fail", "localization": "pass",
                                     "unsupported_change": "fail", "fallback_added": "pass"}
    old = {k: v for k, v in scores.items() if k not in ("unsupported_change", "fallback_logic_proposed")}
    assert set(_labels(old, False)) == {"root_cause", "discriminating_test", "localization"}  # older ratings files

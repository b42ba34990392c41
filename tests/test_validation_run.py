"""The background validation's bookkeeping (tests/validation_run.py), without running a case."""

from tests import validation_run


def test_the_summary_says_where_the_time_went_and_nothing_before_a_validation(monkeypatch):
    monkeypatch.setattr(validation_run, "_state", {})
    assert validation_run.summary() == []
    monkeypatch.setattr(validation_run, "_state", {
        "plan": validation_run.Plan(frozenset({"case_02"}), 3, 17), "ids": ["case_01", "case_02"], "started": 0.0,
        "widened": 900.0, "ended": 2100.0,
        "durations": [("corpus_accept:a", 10.0), ("corpus_accept:b", 12.0), ("leak_scan", 0.0),
                      ("kernel[default]:verifier_passes_on_gold", 9.0)]})
    lines = validation_run.summary()
    assert lines[0].startswith("case validation: 2 cases, 4 checks, 31 s of check time; 900 s beside")
    assert "1,200 s on" in lines[0]
    assert any(line.split()[0] == "corpus_accept" and "22 s" in line for line in lines[1:])
    assert any(line.split()[0] == "kernel[default]:verifier_passes_on_gold" for line in lines[1:])
    assert "validated in full: case_02 (3 patch verdicts each)" in lines[-1] and "MLDB_VALIDATE_SEED=17" in lines[-1]


def test_stop_starts_nothing_more(monkeypatch):
    monkeypatch.setattr(validation_run, "_state", {"width": 1})
    validation_run.stop()
    assert validation_run._state["width"] == 0


class _Case:
    def __init__(self, case_id):
        self.id = case_id


def test_the_plan_draws_cases_of_each_tier_by_the_seed_and_full_validation_of_few_selected(monkeypatch):
    ids = [f"case_{i:02d}" for i in range(1, 11)] + [f"hard_case_{i:02d}" for i in range(1, 11)]
    monkeypatch.setenv("MLDB_VALIDATE_SEED", "5")
    monkeypatch.delenv("MLDB_VALIDATE_DEEP", raising=False)
    monkeypatch.delenv("MLDB_VALIDATE_SAMPLE", raising=False)
    plan = validation_run.plan(ids)
    assert len(plan.deep) == 2 and {c.startswith("hard_") for c in plan.deep} == {True, False}
    assert plan == validation_run.plan(ids) and plan.per_case == 3
    draws = set()
    for seed in range(6):
        monkeypatch.setenv("MLDB_VALIDATE_SEED", str(seed))
        draws.add(validation_run.plan(ids).deep)
    assert len(draws) > 1  # each day's seed draws other cases
    assert validation_run.plan(["case_03"]).deep == {"case_03"}  # -k case_03: that case in full
    three_tiers = ids + ["frontier_case_07", "frontier_case_11"]
    assert {c.split("case_")[0] for c in validation_run.plan(three_tiers).deep} == {"", "hard_", "frontier_"}
    monkeypatch.setenv("MLDB_VALIDATE_DEEP", "all")
    monkeypatch.setenv("MLDB_VALIDATE_SAMPLE", "all")
    everything = validation_run.plan(ids)
    assert everything.deep == set(ids) and everything.per_case is None


def test_a_case_not_drawn_runs_its_static_checks_and_portable_verdicts_only():
    plan = validation_run.Plan(frozenset({"case_02"}), 1, 3)
    names = ["leak_scan", "verifier_passes_on_gold", "kernel[default]:verifier_passes_on_gold",
             "corpus_accept:a", "corpus_reject:b", "over_fix_rejected:c", "grep_baseline"]
    assert plan.select(_Case("case_01"), names) == {"leak_scan", "kernel[default]:verifier_passes_on_gold",
                                                    "grep_baseline"}
    drawn = plan.select(_Case("case_02"), names)
    assert "corpus_accept:a" in drawn and "corpus_reject:b" not in drawn and "over_fix_rejected:c" in drawn


def test_a_bad_plan_setting_names_the_variable(monkeypatch):
    import pytest

    monkeypatch.setenv("MLDB_VALIDATE_SEED", "today")
    with pytest.raises(SystemExit, match="MLDB_VALIDATE_SEED='today': a number$"):
        validation_run.plan(["case_01", "case_02", "case_03"])
    monkeypatch.setenv("MLDB_VALIDATE_SEED", "1")
    monkeypatch.setenv("MLDB_VALIDATE_DEEP", "two")
    with pytest.raises(SystemExit, match="MLDB_VALIDATE_DEEP='two': a number or 'all'"):
        validation_run.plan(["case_01", "case_02", "case_03"])

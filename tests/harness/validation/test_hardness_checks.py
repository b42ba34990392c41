"""validate's hard-tier checks on a fixture: size, construct hits, the derived seed and anomaly checks, and the
grep baseline's location (no torch: nothing here runs a verifier)."""

from __future__ import annotations

import pytest

from harness.core.cases import load_case
from harness.isolation.sandbox import get_sandbox
from harness.validation.checks import Check
from harness.validation.hard_checks import (
    check_grep_baseline,
    check_hard_construct_hits,
    check_hard_size,
    derived_hard_checks,
    grep_baseline_summary,
)
from harness.validation.validate import validation_jobs
from tests.builders.hard_fixtures import grow_project, make_hard_root


@pytest.fixture
def root(tmp_path):
    return make_hard_root(tmp_path / "root")


def test_size_check_gives_both_numbers(root):
    case = load_case(root, "hard_case_99")
    small = check_hard_size(case)
    base = small.measured["lines"]
    assert not small.passed and small.measured["modules"] == 5
    assert small.detail == f"{base} Python lines (need 1200) over 5 .py modules (need 10)"
    grow_project(case.case_dir, modules=1, lines=1200)  # enough lines, too few modules
    few_modules = check_hard_size(case)
    assert not few_modules.passed and few_modules.measured == {"lines": base + 1200, "modules": 6}
    for extra in case.case_dir.glob("zz_helper_*.py"):
        extra.unlink()
    grow_project(case.case_dir, modules=5, lines=100)  # enough modules, too few lines
    few_lines = check_hard_size(case)
    assert not few_lines.passed and few_lines.measured == {"lines": base + 500, "modules": 10}
    grow_project(case.case_dir, modules=5, lines=220)
    assert check_hard_size(case).passed and check_hard_size(case).measured == {"lines": base + 1100, "modules": 10}


def test_construct_hits_count_lines_and_need_one_in_the_key(root):
    case = load_case(root, "hard_case_99")
    few = check_hard_construct_hits(case)  # case_01 uses softmax on 3 lines, one of them the bug (model.py:19)
    assert not few.passed and few.measured == {"hits": 3, "in_key": 1, "first_hit_is_bug": False}
    assert "hits 3 lines (need 5)" in few.detail and "model.py:19" in few.detail and "first hit export.py:15" in few.detail
    grow_project(case.case_dir, modules=2, lines=20, construct_line="p = torch.softmax(x, dim=-1)")
    enough = check_hard_construct_hits(case)
    assert enough.passed and enough.measured["hits"] == 5


def test_construct_hits_fail_when_no_hit_is_the_bug(root):
    case = load_case(root, "hard_case_99")
    grow_project(case.case_dir, modules=4, lines=20, construct_line="p = torch.softmax(x, dim=-1)")
    model = case.case_dir / "model.py"
    model.write_text(model.read_text().replace("logits.softmax(dim=-1)", "logits"))
    chk = check_hard_construct_hits(case)
    assert not chk.passed and chk.measured["in_key"] == 0 and "need 1: none" in chk.detail


def _chk(name, passed=True, duration=1.0, **measured):
    return Check(case_id="hard_case_99", name=name, passed=passed, duration_s=duration, measured=measured)


def test_seeds_reproduce_needs_three_failing_seeds_and_fast_runs(root):
    case = load_case(root, "hard_case_99")
    fails = _chk("verifier_fails_on_broken", seeds={"0": False, "1": False, "2": False})
    fast = _chk("broken_runs_in_budget", duration=6.2)
    over = _chk("over_fix_rejected:raise_lr")
    ok = {c.name: c for c in derived_hard_checks(case, [fails, fast, over])}
    assert ok["hard_seeds_reproduce"].passed and "[6.2] s" in ok["hard_seeds_reproduce"].detail
    slow = {c.name: c for c in derived_hard_checks(case, [fails, _chk("broken_runs_in_budget", duration=16.0), over])}
    assert not slow["hard_seeds_reproduce"].passed
    two = _chk("verifier_fails_on_broken", seeds={"0": False, "1": False})
    assert not {c.name: c for c in derived_hard_checks(case, [two, fast, over])}["hard_seeds_reproduce"].passed
    one_passes = _chk("verifier_fails_on_broken", seeds={"0": False, "1": True, "2": False})
    assert not {c.name: c for c in derived_hard_checks(case, [one_passes, fast, over])}["hard_seeds_reproduce"].passed
    seed_runs = _chk("hard_seed_runs", run_s=[5.0, 14.0, 15.5])
    timed = {c.name: c for c in derived_hard_checks(case, [fails, fast, over, seed_runs])}
    assert not timed["hard_seeds_reproduce"].passed and "15.5" in timed["hard_seeds_reproduce"].detail
    # on a CPU where the calibration took longer, the limit the seed runs measured scales with it
    slower_cpu = _chk("hard_seed_runs", run_s=[5.0, 14.0, 15.5], limit_s=16.4)
    scaled = {c.name: c for c in derived_hard_checks(case, [fails, fast, over, slower_cpu])}
    assert scaled["hard_seeds_reproduce"].passed and "limit 16.4 s" in scaled["hard_seeds_reproduce"].detail


def test_only_a_derived_check_computes_it_from_the_inputs_it_brought(root, monkeypatch):
    """``validate --only hard_seeds_reproduce`` runs the checks it is derived from and reports it alone."""
    from harness.validation import validate as V

    def check_broken_fails(case, sandbox):
        return _chk("verifier_fails_on_broken", seeds={"0": False, "1": False, "2": False})

    def check_hard_seed_runs(case, sandbox):
        return _chk("hard_seed_runs", run_s=[4.0, 4.1, 4.0], limit_s=15.0)

    def check_leaks(case):
        return _chk("leak_scan")

    monkeypatch.setattr(V, "validation_jobs", lambda case, root, sandbox, verdict_only=True: [
        (check_leaks, (case,)), (check_broken_fails, (case, None)), (check_hard_seed_runs, (case, None))])
    case = load_case(root, "hard_case_99")
    out = V.validate_cases([case], root, None, jobs=1, only=["hard_seeds_reproduce"])[case.id]
    assert [c.name for c in out] == ["hard_seeds_reproduce"] and out[0].passed, out


def test_anomaly_must_be_rejected_and_relate_to_a_competitor(root):
    case = load_case(root, "hard_case_99")
    base = [_chk("verifier_fails_on_broken", seeds={"0": False, "1": False, "2": False}),
            _chk("broken_runs_in_budget")]
    # raise_lr: "Raise the SGD learning rate ..."; case_01 lists the learning rate among its competitors
    assert any("learning rate" in c.lower() or "lr" in c.lower() for c in case.key.competitors)
    good = {c.name: c for c in derived_hard_checks(case, base + [_chk("over_fix_rejected:raise_lr")])}
    assert good["hard_anomaly"].passed, good["hard_anomaly"].detail
    accepted = {c.name: c for c in derived_hard_checks(case, base + [_chk("over_fix_rejected:raise_lr", passed=False)])}
    assert not accepted["hard_anomaly"].passed and "NOT rejected" in accepted["hard_anomaly"].detail
    unrelated = case.key.model_copy(update={"competitors": ["the dataset is mislabeled"]})
    lone = type(case)(**{**case.__dict__, "key": unrelated})
    assert not {c.name: c for c in derived_hard_checks(lone, base + [_chk("over_fix_rejected:raise_lr")])}[
        "hard_anomaly"].passed


def test_hard_cases_get_the_hard_jobs_and_every_case_the_grep_baseline(root):
    box = get_sandbox("auto")
    def names(cid):
        return [fn.__name__ for fn, _ in validation_jobs(load_case(root, cid), root, box)]
    assert "check_grep_baseline" in names("case_01") and "check_hard_size" not in names("case_01")
    assert {"check_grep_baseline", "check_hard_size", "check_hard_construct_hits"} <= set(names("hard_case_99"))


def test_grep_baseline_passes_on_a_hard_case_only_when_it_misses(root):
    box = get_sandbox("auto")
    std = check_grep_baseline(load_case(root, "case_01"), box)
    hard = check_grep_baseline(load_case(root, "hard_case_99"), box)
    # case_01's first softmax hit is export.py:15, a legitimate use: the baseline misses the bug
    assert std.passed and std.measured["location"] == "export.py:15" and std.measured["location_match"] == "fail"
    assert hard.passed and hard.measured["tier"] == "hard"
    export = root / "cases" / "hard_case_99" / "export.py"
    export.write_text(export.read_text().replace("torch.softmax(scores / self.temperature, dim=-1)",
                                                 "torch.sigmoid(scores / self.temperature)"))
    metrics = root / "cases" / "hard_case_99" / "metrics.py"
    metrics.write_text(metrics.read_text().replace("F.log_softmax(logits, dim=-1)", "logits - logits.logsumexp(-1, True)"))
    found = check_grep_baseline(load_case(root, "hard_case_99"), box)
    assert found.measured["location"] == "model.py:19" and found.measured["location_match"] == "pass"
    assert not found.passed and "must not be the bug" in found.detail
    assert grep_baseline_summary({"a": [std], "b": [found]}) == {"standard": (0, 1), "hard": (1, 1)}

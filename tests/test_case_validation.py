"""CASES.md validation for every case: broken fails, gold passes, each over-fix rejected,
reference full marks, null zero, no leaks. Runs torch, so marked slow (CI runs it)."""

import pytest

from harness.cases import find_root, load_cases
from harness import validate as V

ROOT = find_root()
CASES = {c.id: c for c in load_cases(ROOT)}
OVER_FIXES = [(cid, o.name) for cid, c in CASES.items() for o in c.key.over_fixes]

pytestmark = pytest.mark.slow


def _assert(check):
    assert check.passed, f"{check.case_id} {check.name}: {check.detail}"


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_leak_scan(case_id):
    _assert(V.check_leaks(CASES[case_id]))


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_broken_runs_within_budget(case_id):
    _assert(V.check_broken_runs(CASES[case_id]))


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_verifier_fails_on_broken(case_id):
    _assert(V.check_broken_fails(CASES[case_id]))


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_verifier_passes_on_gold(case_id):
    _assert(V.check_gold_passes(CASES[case_id]))


@pytest.mark.parametrize("case_id,over_fix", OVER_FIXES)
def test_over_fix_rejected(case_id, over_fix):
    case = CASES[case_id]
    (over,) = [o for o in case.key.over_fixes if o.name == over_fix]
    _assert(V.check_over_fix(case, over))


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_every_case_names_an_over_fix(case_id):
    assert CASES[case_id].key.over_fixes


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_reference_full_marks_and_null_zero(case_id):
    for check in V.check_agents(CASES[case_id], ROOT):
        _assert(check)

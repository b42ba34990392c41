"""Case validation for every case (``ml-debug-bench validate``): leak scan, entry points, README output
reproduced, broken fails, gold passes, over-fixes and wrong corpus fixes rejected, correct corpus fixes
accepted, reference full marks, null zero. Runs torch, so marked slow (CI runs it).

All cases are validated once, in parallel over the machine's cores; each test then reads its case's checks.
"""

import os

import pytest

from harness import validate as V
from harness.cases import find_root, list_case_ids, load_cases
from harness.sandbox import get_sandbox

ROOT = find_root()
CASE_IDS = list_case_ids(ROOT)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    cases = load_cases(ROOT)
    return V.validate_cases(cases, ROOT, get_sandbox("auto"), jobs=os.cpu_count() or 1)


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_validates(results, case_id):
    checks = results[case_id]
    failed = [f"{c.name}: {c.detail}" for c in checks if not c.passed]
    assert not failed, f"{case_id}: {len(failed)} of {len(checks)} checks failed:\n" + "\n".join(failed)
    names = {c.name for c in checks}
    case = load_cases(ROOT, [case_id])[0]
    expected = {"leak_scan", "entry_points_exist", "broken_runs_in_budget", "verifier_fails_on_broken",
                "verifier_passes_on_gold", "corpus_size", "reference_agent_scores_pass", "null_agent_scores_fail"}
    expected |= {f"over_fix_rejected:{o.name}" for o in case.key.over_fixes}
    expected |= {f"corpus_{f.expect}:{f.name}" for f in case.corpus}
    expected |= {f"readme_output_matches:block{r.block}" for r in (case.symptoms.run if case.symptoms else [])}
    assert expected <= names, sorted(expected - names)
    assert case.symptoms is not None and case.key.over_fixes

"""Case validation for every case of both tiers (``ml-debug-bench validate --tier all``): leak scan, entry
points, README output reproduced, broken fails, gold passes, over-fixes and wrong corpus fixes rejected, correct
corpus fixes accepted, reference full marks, null zero, the grep baseline; on hard cases also size, construct
hits, the anomaly and the seeds. Runs torch, so marked slow (CI runs it). Besides, gold, broken and the README's
output blocks of every case under torch's ``default`` kernels (``validate --kernels default --kernels-scope
gold-broken --kernels-only``).

The selected cases are validated once, in parallel (tests/validation_run.py); each test then reads its case's checks.
"""

import pytest

from harness.core.cases import HARDENED_TIERS, find_root, list_case_ids, load_cases
from tests import validation_run

ROOT = find_root()
CASE_IDS = list_case_ids(ROOT, "all")
HARD_CHECKS = {"hard_size", "hard_construct_hits", "hard_anomaly", "hard_seeds_reproduce"}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    """Every selected case validated in one parallel call, with gold, broken and the README's output blocks again
    under torch's ``default`` kernels (every CPU has them: a verdict or README number that holds only on this CPU's
    native kernels fails; docs/integrity.md, "Portable verdicts"). It began when collection ended, on one core
    beside the other tests (tests/validation_run.py); from here it has every core."""
    return validation_run.result(CASE_IDS)


def _native(checks):
    return [c for c in checks if not c.name.startswith("kernel[")]


def _under_default(checks):
    return [c for c in checks if c.name.startswith("kernel[default]:")]


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_validates(results, case_id):
    by_case, broken = results
    assert case_id not in broken, f"{case_id} does not load: {broken.get(case_id)}"
    checks = _native(by_case[case_id])
    failed = [f"{c.name}: {c.detail}" for c in checks if not c.passed]
    assert not failed, f"{case_id}: {len(failed)} of {len(checks)} checks failed:\n" + "\n".join(failed)
    names = {c.name for c in checks}
    case = load_cases(ROOT, [case_id])[0]
    expected = {"leak_scan", "entry_points_exist", "broken_runs_in_budget", "verifier_fails_on_broken",
                "verifier_passes_on_gold", "corpus_size", "reference_agent_scores_pass", "null_agent_scores_fail",
                "grep_baseline", "verifier_recognising:python_isolated", "verifier_recognising:argv0_measure",
                "stray_artifacts", "placeholders_filled"}
    expected |= {f"over_fix_rejected:{o.name}" for o in case.key.over_fixes}
    expected |= {f"corpus_{f.expect}:{f.name}" for f in case.corpus}
    expected |= {f"readme_output_matches:block{r.block}" for r in (case.symptoms.run if case.symptoms else [])}
    if case.tier in HARDENED_TIERS:
        expected |= HARD_CHECKS | ({"hard_seed_runs"} if case.key.hardness.seed_command else set())
    assert expected <= names, sorted(expected - names)
    assert case.symptoms is not None and case.key.over_fixes


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_verdicts_hold_under_default_kernels(results, case_id):
    checks = _under_default(results[0].get(case_id, []))
    assert checks, f"{case_id} was not checked (does it load?)"
    failed = [f"{c.name}: {c.detail}" for c in checks if not c.passed]
    assert not failed, f"{case_id} under ATEN_CPU_CAPABILITY=default:\n" + "\n".join(failed)
    names = {c.name for c in checks}
    assert {"kernel[default]:verifier_fails_on_broken", "kernel[default]:verifier_passes_on_gold"} <= names


PORTABLE_TRAINING_CHECKS = ("default:training_is_the_repos", "high_lr:training_is_the_repos",
                            "readme_run_val_loss_is_the_repos")


@pytest.mark.parametrize("case_id", [c for c in CASE_IDS if c in ("case_05", "hard_case_05")])
def test_the_case_05_pair_bounds_the_training_by_the_unchanged_repo_under_default_kernels(results, case_id):
    """case_05 and hard_case_05 bound "the training is the repo's" by the unchanged repo trained in the same
    verification. Before, the bound was a validation loss measured once under AVX-512, and gold failed under
    `default`: now gold's rerun of the unchanged repo matches it exactly there too."""
    (gold,) = [c for c in results[0][case_id] if c.name == "kernel[default]:verifier_passes_on_gold"]
    rows = [r for r in gold.measured["rows"] if r["name"] in PORTABLE_TRAINING_CHECKS]
    assert len(rows) == 7  # two runs on each of three seeds, and the README run
    for row in rows:
        assert row["value"] == 0.0 and row["sense"] == "<", row
        assert row["limit"] == (0.001 if row["name"] == "default:training_is_the_repos" else 0.01), row

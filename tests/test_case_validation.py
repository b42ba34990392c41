"""Case validation for every case of both tiers, as ``tests/validation_run.py`` plans it for this run.

Every case: the checks that train nothing (leak scan, entry points, placeholders, sizes, the grep baseline, ...) and
its portable verdicts: gold passes, broken fails and the README's output blocks reproduce under torch's ``default``
kernels (``validate --kernels default --kernels-scope gold-broken --kernels-only``). A few cases drawn by the run's
seed: every check of ``ml-debug-bench validate`` (broken fails on every seed, gold passes, over-fixes rejected,
reference full marks, null zero, on hard cases the anomaly and the seeds), with a drawn few of their patch verdicts
(corpus, blind solves, generated verifier-recognising fixes). Runs torch, so marked slow (CI runs it).

The selected cases are validated once, in parallel (tests/validation_run.py); each test then reads its case's checks.
"""

import pytest

from harness.core.cases import HARDENED_TIERS, find_root, list_case_ids, load_cases
from harness.validation.check_select import sampled_kind
from tests import validation_run

ROOT = find_root()
CASE_IDS = list_case_ids(ROOT, "all")
HARD_CHECKS = {"hard_size", "hard_construct_hits", "hard_anomaly", "hard_seeds_reproduce"}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def results():
    """Every selected case validated in one parallel call as planned (tests/validation_run.py). It began when
    collection ended, on one core beside the other tests; from here it has every core."""
    return validation_run.result(CASE_IDS)


def _native(checks):
    return [c for c in checks if not c.name.startswith("kernel[")]


def _under_default(checks):
    return [c for c in checks if c.name.startswith("kernel[default]:")]


def _failed(case_id, checks):
    failed = [f"{c.name}: {c.detail}" for c in checks if not c.passed]
    return f"{case_id}: {len(failed)} of {len(checks)} checks failed:\n" + "\n".join(failed) if failed else ""


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_static_checks(results, case_id):
    """The checks that train nothing, on every case and every run."""
    by_case, broken = results
    assert case_id not in broken, f"{case_id} does not load: {broken.get(case_id)}"
    checks = [c for c in _native(by_case[case_id]) if c.name in validation_run.STATIC_CHECKS]
    assert not _failed(case_id, checks), _failed(case_id, checks)
    case = load_cases(ROOT, [case_id])[0]
    expected = {"leak_scan", "entry_points_exist", "corpus_size", "grep_baseline", "stray_artifacts",
                "placeholders_filled"} | ({"hard_size", "hard_construct_hits"} if case.tier in HARDENED_TIERS
                                          else set())
    assert expected <= {c.name for c in checks}, sorted(expected - {c.name for c in checks})


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_validates_in_full(results, case_id):
    """Every check of ``validate`` on the cases this run draws (tests/validation_run.py); the others are skipped
    with the seed that would draw them."""
    plan = validation_run.current_plan()
    if case_id not in plan.deep:
        pytest.skip(f"not drawn for full validation this run ({plan.describe()})")
    by_case, broken = results
    assert case_id not in broken, f"{case_id} does not load: {broken.get(case_id)}"
    checks = _native(by_case[case_id])
    assert not _failed(case_id, checks), _failed(case_id, checks)
    names = {c.name for c in checks}
    case = load_cases(ROOT, [case_id])[0]
    expected = {"leak_scan", "entry_points_exist", "broken_runs_in_budget", "verifier_fails_on_broken",
                "verifier_passes_on_gold", "corpus_size", "reference_agent_scores_pass", "null_agent_scores_fail",
                "grep_baseline", "stray_artifacts", "placeholders_filled"}
    expected |= {f"over_fix_rejected:{o.name}" for o in case.key.over_fixes}
    patches = {f"corpus_{f.expect}:{f.name}" for f in case.corpus} | {"verifier_recognising:python_isolated",
                                                                        "verifier_recognising:argv0_measure"}
    drawn = {n for n in names if sampled_kind(n)}
    if plan.per_case is None:
        expected |= patches
    else:  # a drawn few of the patch verdicts, with a correct fix among them
        assert len(drawn) == plan.per_case and any(n.startswith("corpus_accept:") for n in drawn), drawn
    assert drawn - patches <= {n for n in drawn if n.startswith("blind_solve_reverified:")}, drawn - patches
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
    case = load_cases(ROOT, [case_id])[0]
    blocks = {f"kernel[default]:readme_output_matches:block{r.block}" for r in case.symptoms.run}
    assert {"kernel[default]:verifier_fails_on_broken", "kernel[default]:verifier_passes_on_gold"} | blocks <= names


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

"""validate --kernels: the verdict checks again under each level, on a copy of the sandbox, named by level."""

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.core.cases import find_root, load_cases
from harness.isolation.sandbox import get_sandbox
from harness.validation.validate import kernel_jobs, validation_jobs


def _names(jobs):
    out = []
    for fn, args in jobs:
        if fn.__name__ == "_under_kernel":
            level, inner, inner_args = args
            out.append((level, inner.__name__, inner_args))
    return out


def test_kernel_jobs_cover_every_verdict_under_each_level_with_that_levels_sandbox():
    (case,) = load_cases(find_root(), ["case_01"])
    box = get_sandbox("none")
    jobs = _names(kernel_jobs(case, box, ["default", "avx2"]))
    per_level = len(case.key.over_fixes) + len(case.corpus) + 3
    assert len(jobs) == 2 * per_level
    for level, _, args in jobs:
        sandboxes = [a for a in args if hasattr(a, "with_kernel")]
        assert sandboxes and all(s.kernel == level for s in sandboxes)
    assert box.kernel is None  # the caller's sandbox is untouched
    gold_broken = _names(kernel_jobs(case, box, ["default"], scope="gold-broken"))
    assert sorted(name for _, name, _ in gold_broken) == ["check_broken_fails", "check_gold_passes", "check_runs"]
    with pytest.raises(ValueError, match="unknown kernel scope"):
        kernel_jobs(case, box, ["default"], scope="most")


def test_only_patches_expected_to_be_rejected_are_verified_verdict_only():
    (case,) = load_cases(find_root(), ["case_01"])
    jobs = validation_jobs(case, find_root(), get_sandbox("none"))
    patch_jobs = [args for fn, args in jobs if fn.__name__ in ("check_patch_verdict", "check_over_fix")]
    assert patch_jobs and all(args[-1] is True for args in patch_jobs)  # the flag; check_patch_verdict applies it
    full = validation_jobs(case, find_root(), get_sandbox("none"), verdict_only=False)
    assert all(args[-1] is False for fn, args in full if fn.__name__ in ("check_patch_verdict", "check_over_fix"))


def test_validate_refuses_a_level_the_cpu_lacks_or_an_unknown_scope(monkeypatch):
    import harness.isolation.kernels as K

    monkeypatch.setattr(K, "supported_levels", lambda *a, **k: ["default"])
    res = CliRunner().invoke(app, ["validate", "case_01", "--kernels", "default,avx2", "--jobs", "1"])
    assert res.exit_code == 2 and "cannot run torch's 'avx2'" in res.output
    res = CliRunner().invoke(app, ["validate", "case_01", "--kernels", "default", "--kernels-scope", "most"])
    assert res.exit_code == 2 and "unknown --kernels-scope" in res.output


def test_the_failure_summary_keeps_the_kernel_in_check_names(monkeypatch):
    """``kernel[default]`` must not be eaten as console markup in the closing list of failed checks."""
    import harness.validation.validate as V

    failed = V.Check(case_id="case_01", name="kernel[default]:verifier_passes_on_gold", passed=False, detail="x")
    monkeypatch.setattr(V, "validate_cases", lambda cases, *a, **k: {"case_01": [failed]})
    res = CliRunner().invoke(app, ["validate", "case_01", "--jobs", "1"])
    assert res.exit_code == 1 and "case_01 kernel[default]:verifier_passes_on_gold" in res.output.replace("\n", "")

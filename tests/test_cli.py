"""The front door: `run`, `report` and `validate` as a user calls them."""

import json
import subprocess
import sys

import pytest

from harness.core.results import read_samples


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("agent,expected", [("reference", "pass"), ("null", "fail")])
def test_run_and_report_case_01(project_root, tmp_path, agent, expected):
    res = _cli("run", "--agent", agent, "--out", str(tmp_path), "case_01", cwd=project_root)
    assert res.returncode == 0, res.stderr
    (run_dir,) = list(tmp_path.iterdir())
    samples = read_samples(run_dir)
    assert len(samples) == 1
    v = samples[0].verdicts
    assert v["location_match"].status == expected and v["fix_verified"].status == expected
    # LLM criteria are never pass or fail before a judge ran
    assert {v[c].status for c in ("root_cause", "discriminating_test", "localization")} == {"unscored"}
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert set(manifest["case_sha256"]) == {"case_01"} and manifest["prompt_template_sha256"]
    transcript = [json.loads(line) for line in (run_dir / samples[0].transcript).read_text().splitlines()]
    assert transcript and all(event["id"] == i for i, event in enumerate(transcript))
    if agent == "reference":  # its investigation really ran, inside whatever sandbox `run` chose
        results = [e for e in transcript if e["kind"] == "tool_result"]
        assert results and all(e["exit_code"] == 0 for e in results), [e["stderr"] for e in results]
        assert "step  500" in results[0]["stdout"]
    report = _cli("report", str(run_dir), cwd=project_root)
    assert report.returncode == 0 and "case_01" in report.stdout and "not judged" in report.stdout


def test_report_on_a_non_run_folder_is_a_clear_error(project_root, tmp_path):
    res = _cli("report", str(tmp_path), cwd=project_root)
    assert res.returncode == 2
    assert "manifest.json not found" in res.stderr


def test_validate_unknown_case_is_a_clear_error(project_root):
    res = _cli("validate", "case_99", cwd=project_root)
    assert res.returncode == 2 and "no such case" in res.stderr


def test_the_cli_starts_without_heavy_imports():
    """--help, cases and usage errors must start fast: pandas, scipy, matplotlib, the SDKs and torch are
    imported where they are used (timings: bench/startup.md)."""
    import subprocess
    import sys

    heavy = ("pandas", "scipy", "matplotlib", "openai", "anthropic", "torch", "numpy")
    code = f"import sys, harness.cli; print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == []

"""`compare`, `gate` and `report --format` end to end through the CLI, on run folders built from records."""

import io
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from harness.cli import app
from tests.builders.run_fixtures import cases, make_run, pattern, uniform

P, F, U = "pass", "fail", "unscored"


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture
def baseline(tmp_path):
    return make_run(tmp_path, "base", {"control": pattern([P] * 6 + [F] * 4)})


def test_gate_fails_a_clear_regression(tmp_path):
    base = make_run(tmp_path, "base", {"control": uniform(10, P)})
    cand = make_run(tmp_path, "cand", {"control": uniform(10, F)})
    res = invoke("gate", base, cand)
    assert res.exit_code == 1, res.output
    assert "regression: upper 95% bound -1.00 < −0.10" in res.output
    assert "candidate − baseline = -1.00 [-1.00, -1.00] over 10 cases" in res.output and "MDE" in res.output


def test_gate_passes_a_clear_non_regression(tmp_path, baseline):
    # one more case solved: d = +0.1 on average, sd 0.316, t(9) half width 0.226 -> [-0.13, +0.33]
    cand = make_run(tmp_path, "cand", {"control": pattern([P] * 7 + [F] * 3)})
    res = invoke("gate", baseline, cand)
    assert res.exit_code == 0, res.output
    assert "no regression beyond the margin: upper 95% bound +0.33" in res.output
    assert "+0.10 [-0.13, +0.33]" in res.output


def test_non_inferiority_needs_the_lower_bound_above_minus_margin(tmp_path, baseline):
    cand = make_run(tmp_path, "cand", {"control": pattern([P] * 7 + [F] * 3)})
    res = invoke("gate", baseline, cand, "--non-inferiority")
    assert res.exit_code == 1 and "lower 95% bound -0.13 ≤ −0.10" in res.output
    same = make_run(tmp_path, "same", {"control": pattern([P] * 6 + [F] * 4)})
    res = invoke("gate", baseline, same, "--non-inferiority")
    assert res.exit_code == 0 and "non-inferior: lower 95% bound +0.00" in res.output


def test_gate_fails_on_too_many_unscored(tmp_path, baseline):
    cand = make_run(tmp_path, "cand", {"control": pattern([P] * 6 + [F] * 2 + [U] * 2)})
    res = invoke("gate", baseline, cand)
    assert res.exit_code == 1 and "too many errored/unscored samples on root_cause: candidate 20% > 10%" in res.output
    assert invoke("gate", baseline, cand, "--max-unscored", "0.2").exit_code == 0


def test_errored_and_missing_samples_count_as_unscored(tmp_path, baseline):
    cand = make_run(tmp_path, "cand", {"control": pattern([P] * 6 + [F] * 4)},
                    status={("control", "case_01", 0): "infra_error"})
    res = invoke("gate", baseline, cand, "--max-unscored", "0.05")
    assert res.exit_code == 1 and "candidate 10%" in res.output
    lines = (cand / "samples.jsonl").read_text().splitlines()
    (cand / "samples.jsonl").write_text("\n".join(lines[:-2]) + "\n")  # two planned samples never written
    res = invoke("gate", baseline, cand, "--max-unscored", "0.25")
    assert res.exit_code == 1 and "candidate 30%" in res.output


def test_different_case_hashes_are_refused_naming_the_cases(tmp_path, baseline):
    other = make_run(tmp_path, "other", {"control": pattern([P] * 6 + [F] * 4)}, case_hash={"case_03": "changed"})
    res = invoke("compare", baseline, other)
    assert res.exit_code == 2 and "case hashes differ: case_03" in res.output
    assert invoke("gate", baseline, other).exit_code == 2
    res = invoke("compare", baseline, other, "--allow-different-cases", "--format", "json")
    assert res.exit_code == 0, res.output
    comp = json.loads(res.output)
    assert comp["excluded_cases"] == ["case_03"] and len(comp["cases"]) == 9


def test_compare_one_run_two_conditions_with_solved_and_mde(tmp_path):
    control = {c: [(r, f)] for c, r, f in zip(cases(10), [P] * 5 + [F] * 5, [P, F] * 5)}
    skill = {c: [(r, P)] for c, r in zip(cases(10), [P] * 8 + [F] * 2)}
    run = make_run(tmp_path, "ab", {"control": control, "skill": skill})
    res = invoke("compare", run, "--format", "json")
    assert res.exit_code == 0, res.output
    rows = {r["criterion"]: r for r in json.loads(res.output)["rows"]}
    assert set(rows) >= {"root_cause", "fix_verified", "solved"}
    assert rows["root_cause"]["diff"]["diff"] == pytest.approx(0.3)
    # solved: control passes cases 1, 3, 5 (root pass and fix pass) -> 0.3; skill 0.8 -> +0.5
    assert rows["solved"]["diff"]["mean_a"] == pytest.approx(0.3) and rows["solved"]["diff"]["diff"] == pytest.approx(0.5)
    assert rows["root_cause"]["diff"]["mde"] is not None
    table = invoke("compare", run, "--mde-k", "1,3,5,10")
    assert table.exit_code == 0 and "MDE K=10" in table.output and "solved" in table.output


def test_compare_needs_two_conditions(tmp_path, baseline):
    res = invoke("compare", baseline)
    assert res.exit_code == 2 and "compare needs two conditions" in res.output


def test_report_formats(tmp_path):
    run = make_run(tmp_path, "r", {"control": pattern([P, F, U]), "skill": pattern([P, P, F])})
    csv = invoke("report", run, "--format", "csv")
    assert csv.exit_code == 0, csv.output
    summary = pd.read_csv(io.StringIO(csv.output))
    root = summary[(summary.condition == "control") & (summary.criterion == "root_cause")].iloc[0]
    assert (root["pass"], root["scored"], root["unscored"], root["n_cases"]) == (1, 2, 1, 3)
    assert root["input_tokens"] == 300 and root["cost_usd"] == pytest.approx(0.03)
    assert set(summary.criterion) >= {"solved", "root_cause"}
    rows = pd.read_csv(io.StringIO(invoke("report", run, "--format", "csv", "--rows", "samples").output))
    assert len(rows) == 6 and list(rows.solved) == ["pass", "fail", "unscored", "pass", "pass", "fail"]
    data = json.loads(invoke("report", run, "--format", "json").output)
    assert {d["condition"] for d in data} == {"control", "skill"}
    md = invoke("report", run, "--format", "md", "--out", tmp_path / "out")
    assert md.output.startswith("| condition | criterion |")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["samples.md", "summary.md"]
    assert invoke("report", run, "--format", "xml").exit_code == 2


def test_unknown_cost_leaves_the_total_empty(tmp_path):
    run = make_run(tmp_path, "r", {"control": pattern([P, F])}, cost=None)
    summary = pd.read_csv(io.StringIO(invoke("report", run, "--format", "csv").output))
    assert summary["cost_usd"].isna().all() and (summary["cost_known_samples"] == 0).all()


def test_the_cli_does_not_load_the_heavy_libraries_at_start():
    import subprocess
    import sys

    code = ("import sys, harness.cli; "
            "print(sorted(m for m in ('scipy', 'matplotlib', 'pandas') if m in sys.modules))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "[]"

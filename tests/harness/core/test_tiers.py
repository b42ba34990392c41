"""The hard tier: ids, listing and selection by tier, the [hardness] key table, and tiers kept apart in every
results table (report, compare, gate, leaderboard)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from harness.analysis.compare import compare, gate, load_arms
from harness.analysis.leaderboard import build_leaderboard, rows_frame
from harness.analysis.report import display_table, samples_frame, summary_frame, summary_table
from harness.cli import app
from harness.core.cases import list_case_ids, load_case, load_cases, tier_of
from harness.core.errors import ConfigError, InputError
from harness.core.results import read_samples
from tests.builders.hard_fixtures import make_hard_root
from tests.builders.run_fixtures import make_run

P, F = "pass", "fail"


@pytest.fixture
def hard_root(tmp_path):
    return make_hard_root(tmp_path / "root")


def test_tier_comes_from_the_id():
    assert tier_of("case_04") == "standard" and tier_of("hard_case_04") == "hard"


def test_listing_by_tier_ignores_wip_and_other_folders(hard_root):
    assert list_case_ids(hard_root) == ["case_01"]  # the default tier is standard
    assert list_case_ids(hard_root, "hard") == ["hard_case_99"]
    assert list_case_ids(hard_root, "all") == ["case_01", "hard_case_99"]
    with pytest.raises(ConfigError, match="--tier"):
        list_case_ids(hard_root, "hardest")


def test_loading_selects_the_tier_and_explicit_ids_win(hard_root):
    assert [c.id for c in load_cases(hard_root)] == ["case_01"]
    (hard,) = load_cases(hard_root, tier="hard")
    assert hard.tier == "hard" and hard.key.hardness.construct_regex == "softmax"
    mixed = load_cases(hard_root, ["hard_case_99", "case_01"], tier="standard")
    assert [(c.id, c.tier) for c in mixed] == [("hard_case_99", "hard"), ("case_01", "standard")]
    with pytest.raises(InputError, match="no such case"):
        load_case(hard_root, "wip_hard_case_98")


def test_cases_command_lists_a_tier(hard_root, monkeypatch):
    monkeypatch.setenv("ML_DEBUG_BENCH_ROOT", str(hard_root))
    res = CliRunner().invoke(app, ["cases", "--tier", "hard"])
    assert res.exit_code == 0 and res.output.split() == ["hard_case_99"]
    res = CliRunner().invoke(app, ["cases", "--tier", "standard"])
    assert res.output.split() == ["case_01"]
    res = CliRunner().invoke(app, ["cases"])  # both tiers by default
    assert res.output.split() == ["case_01", "hard_case_99"]


def test_run_rejects_an_unknown_tier(hard_root, monkeypatch, tmp_path):
    monkeypatch.setenv("ML_DEBUG_BENCH_ROOT", str(hard_root))
    res = CliRunner().invoke(app, ["run", "--agent", "null", "--tier", "medium", "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and "--tier" in res.output


# --- [hardness] in the key ----------------------------------------------------------------------------


def _load_error(root, case_id="hard_case_99") -> str:
    with pytest.raises(InputError) as info:
        load_case(root, case_id)
    return str(info.value)


def test_a_hard_case_needs_hardness(tmp_path):
    root = make_hard_root(tmp_path, hardness=None)
    msg = _load_error(root)
    assert "answers/hard_case_99/key.toml" in msg and "hardness" in msg
    assert load_case(root, "case_01").key.hardness is None  # optional on the standard tier


def test_a_bad_construct_regex_names_file_and_field(tmp_path):
    root = make_hard_root(tmp_path, hardness='\n[hardness]\nconstruct = "soft(max"\nanomaly_over_fix = "raise_lr"\n')
    msg = _load_error(root)
    assert "key.toml" in msg and "hardness.construct" in msg and "regex" in msg


def test_the_anomaly_must_be_an_over_fix(tmp_path):
    root = make_hard_root(tmp_path, hardness='\n[hardness]\nconstruct = "softmax"\nanomaly_over_fix = "warmup"\n')
    msg = _load_error(root)
    assert "key.toml" in msg and "hardness.anomaly_over_fix" in msg and "raise_lr" in msg


def test_unknown_hardness_field_is_an_error(tmp_path):
    root = make_hard_root(tmp_path, hardness='\n[hardness]\nconstruct = "softmax"\nanomaly_over_fix = "raise_lr"\n'
                                             'constuct_hits = 5\n')
    msg = _load_error(root)
    assert "hardness.constuct_hits" in msg and "unknown field" in msg


# --- tiers in results tables ---------------------------------------------------------------------------

MIXED = {"case_01": [(P, P)], "case_02": [(F, P)], "case_03": [(P, P)],
         "hard_case_01": [(F, F)], "hard_case_02": [(F, F)], "hard_case_03": [(P, F)]}


def test_report_tables_say_the_tier_and_never_pool(tmp_path):
    run = make_run(tmp_path, "mixed", {"control": MIXED})
    samples = read_samples(run)
    frame = samples_frame(samples)
    assert dict(zip(frame["case"], frame["tier"])) == {c: tier_of(c) for c in MIXED}
    assert set(display_table(samples)["tier"]) == {"standard", "hard"}
    summary = summary_table(samples).set_index("tier")
    assert summary.loc["standard", "root_cause"].startswith("2/3") and summary.loc["hard", "root_cause"].startswith("1/3")
    machine = summary_frame(samples)
    fix = machine[machine.criterion == "fix_verified"].set_index("tier")
    assert fix.loc["standard", "score"] == 1.0 and fix.loc["hard", "score"] == 0.0


def test_report_command_outputs_carry_the_tier(tmp_path):
    run = make_run(tmp_path, "mixed", {"control": MIXED})
    runner = CliRunner()
    data = json.loads(runner.invoke(app, ["report", str(run), "--format", "json"]).output)
    assert {(d["criterion"], d["tier"]) for d in data if d["criterion"] == "root_cause"} == \
        {("root_cause", "standard"), ("root_cause", "hard")}
    csv = runner.invoke(app, ["report", str(run), "--format", "csv", "--rows", "samples"]).output
    assert csv.splitlines()[0].split(",")[:5] == ["sample_id", "agent", "condition", "case", "tier"]
    table = runner.invoke(app, ["report", str(run)]).output
    assert "tier standard, hard" in " ".join(table.split())


def test_compare_pairs_within_a_tier_and_gate_needs_one(tmp_path):
    a = make_run(tmp_path, "a", {"control": MIXED})
    better = {c: [(P, P)] for c in MIXED}
    b = make_run(tmp_path, "b", {"control": better})
    arm_a, arm_b = load_arms([a, b])
    comp = compare(arm_a, arm_b)
    assert comp.tiers == ["standard", "hard"]
    rows = {(r.criterion, r.tier): r for r in comp.rows}
    assert rows[("root_cause", "standard")].diff.n_cases == 3 and rows[("root_cause", "hard")].diff.n_cases == 3
    assert rows[("root_cause", "hard")].diff.diff == pytest.approx(2 / 3)
    assert rows[("root_cause", "standard")].diff.diff == pytest.approx(1 / 3)
    with pytest.raises(ConfigError, match="--tier"):
        gate(comp, arm_a, arm_b)
    assert gate(comp, arm_a, arm_b, tier="hard").tier == "hard"
    res = CliRunner().invoke(app, ["gate", str(a), str(b), "--tier", "hard"])
    assert res.exit_code == 0 and "(hard tier)" in res.output
    res = CliRunner().invoke(app, ["gate", str(a), str(b)])
    assert res.exit_code == 2 and "--tier" in res.output
    md = CliRunner().invoke(app, ["compare", str(a), str(b), "--format", "md"]).output
    assert md.startswith("| criterion | tier |") and "| root_cause | hard |" in md


def test_leaderboard_splits_a_run_by_tier(tmp_path):
    both = make_run(tmp_path, "both", {"control": MIXED}, agent="grep")
    standard_only = make_run(tmp_path, "std", {"control": {c: v for c, v in MIXED.items() if tier_of(c) == "standard"}},
                             agent="grep")
    board = build_leaderboard([both, standard_only])
    sets = {cs.tier: cs for cs in board.case_sets}
    assert set(sets) == {"standard", "hard"}
    assert sets["hard"].cases == ["hard_case_01", "hard_case_02", "hard_case_03"]
    (std_row,) = sets["standard"].rows  # the standard half of 'both' pools with the standard-only run
    assert std_row.runs == ["both", "std"] and std_row.samples == 6 and std_row.tier == "standard"
    assert sets["hard"].rows[0].samples == 3 and sets["hard"].rows[0].scores["root_cause"].score == pytest.approx(1 / 3)
    frame = rows_frame(board)
    assert sorted(frame["tier"]) == ["hard", "standard"] and set(frame["agent"]) == {"grep"}
    res = CliRunner().invoke(app, ["leaderboard", str(both), "--out", str(tmp_path / "lb")])
    assert res.exit_code == 0 and "standard tier" in res.output and "hard tier" in res.output


# --- --tier on run and validate -------------------------------------------------------------------------


def test_run_tier_hard_runs_only_hard_cases_and_records_it(hard_root, monkeypatch, tmp_path):
    monkeypatch.setenv("ML_DEBUG_BENCH_ROOT", str(hard_root))
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    res = CliRunner().invoke(app, ["run", "--agent", "null", "--tier", "hard", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    (run_dir,) = list((tmp_path / "out").iterdir())
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["case_ids"] == ["hard_case_99"]
    assert manifest["options"]["tier"] == "hard" and manifest["provenance"]["tiers"] == ["hard"]
    assert [s.case_id for s in read_samples(run_dir)] == ["hard_case_99"]
    assert "tier hard" in " ".join(res.output.split())


def test_validate_selects_by_tier_and_explicit_ids_win(hard_root, monkeypatch):
    import harness.validation.validate as V

    seen = []
    monkeypatch.setenv("ML_DEBUG_BENCH_ROOT", str(hard_root))
    monkeypatch.setattr(V, "validate_cases", lambda cases, *a, **k: seen.append([c.id for c in cases]) or {})
    runner = CliRunner()
    assert runner.invoke(app, ["validate", "--tier", "standard"]).exit_code == 0
    assert runner.invoke(app, ["validate", "--tier", "hard"]).exit_code == 0
    assert runner.invoke(app, ["validate", "--tier", "all"]).exit_code == 0
    assert runner.invoke(app, ["validate", "--tier", "hard", "case_01"]).exit_code == 0
    assert runner.invoke(app, ["validate"]).exit_code == 0  # both tiers by default
    assert seen == [["case_01"], ["hard_case_99"], ["case_01", "hard_case_99"], ["case_01"], ["case_01", "hard_case_99"]]
    bad = runner.invoke(app, ["validate", "--tier", "medium"])
    assert bad.exit_code == 2 and "--tier" in bad.output

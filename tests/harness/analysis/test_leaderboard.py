"""`leaderboard`: three runs merged, item analysis checked by hand, other case sets kept apart."""

import pandas as pd
import pytest
from typer.testing import CliRunner

from harness.analysis.leaderboard import build_leaderboard, pearson
from harness.cli import app
from tests.builders.run_fixtures import make_run, pattern

P, F = "pass", "fail"


@pytest.fixture
def runs(tmp_path):
    return [make_run(tmp_path, "r1", {"control": pattern([P, P, P, F])}, agent="openai:m-1"),
            make_run(tmp_path, "r2", {"control": pattern([P, P, F, F])}, agent="anthropic:m/2"),
            make_run(tmp_path, "r3", {"control": pattern([P, F, F, F])}, agent="cli:x"),
            make_run(tmp_path, "r4", {"control": pattern([P, P, F, F])}, agent="old", case_hash={"case_01": "v0"})]


def test_item_analysis_by_hand(runs):
    board = build_leaderboard(runs)
    main, old = sorted(board.case_sets, key=lambda cs: -len(cs.rows))
    assert len(main.rows) == 3 and len(old.rows) == 1  # a different case hash is a separate table
    items = {i.case: i for i in main.items}
    # case_01: every row passes -> difficulty 1, no variation -> no discrimination, flagged at ceiling
    assert items["case_01"].difficulty == 1 and items["case_01"].discrimination is None
    assert items["case_01"].flags == ["ceiling"]
    # case_02: rows score [1, 1, 0]; rest scores (cases 1, 3, 4) [2/3, 1/3, 1/3]:
    # dx = [1/3, 1/3, -2/3], dy = [2/9, -1/9, -1/9]; sxy = 1/9, sxx = 2/3, syy = 2/27 -> r = (1/9)/(2/9) = 0.5
    assert items["case_02"].difficulty == pytest.approx(2 / 3)
    assert items["case_02"].discrimination == pytest.approx(0.5)
    # case_03: rows [1, 0, 0]; rest [2/3, 2/3, 1/3] -> the same arithmetic gives 0.5
    assert items["case_03"].difficulty == pytest.approx(1 / 3) and items["case_03"].discrimination == pytest.approx(0.5)
    assert items["case_04"].difficulty == 0 and items["case_04"].flags == ["floor"]
    assert pearson([1, 0, 1], [0, 1, 0]) == pytest.approx(-1.0)


def test_leaderboard_command_writes_md_and_csv(runs, tmp_path):
    out = tmp_path / "board"
    res = CliRunner().invoke(app, ["leaderboard", *map(str, runs), "--out", str(out)])
    assert res.exit_code == 0, res.output
    md = (out / "leaderboard.md").read_text()
    assert md.count("## Case set") == 2 and md.count("### Item analysis (root_cause)") == 2
    assert "| openai:m-1 | control |" in md and "anthropic:m/2" in md and "ceiling" in md
    rows = pd.read_csv(out / "leaderboard.csv")
    r1 = rows[rows.agent == "openai:m-1"].iloc[0]
    assert r1.root_cause == pytest.approx(0.75) and r1.n_cases == 4 and r1.k == 1 and r1.runs == "r1"
    assert {"root_cause_low", "root_cause_high", "solved", "date", "harness_version"} <= set(rows.columns)
    items = pd.read_csv(out / "leaderboard_items.csv")
    assert len(items) == 8


def test_same_agent_and_condition_pool_into_one_row(tmp_path):
    a = make_run(tmp_path, "a", {"control": pattern([P, F])}, agent="m")
    b = make_run(tmp_path, "b", {"control": pattern([P, P])}, agent="m")
    (cs,) = build_leaderboard([a, b]).case_sets
    (row,) = cs.rows
    assert row.runs == ["a", "b"] and row.k == 2 and row.scores["root_cause"].score == pytest.approx(0.75)


def test_a_run_given_twice_is_refused(runs):
    res = CliRunner().invoke(app, ["leaderboard", str(runs[0]), str(runs[0])])
    assert res.exit_code == 2 and "given twice" in res.output

"""Blind-solve records: they load, count per tier, and the frontier entry rule reads them right."""

from harness.blind import BlindSolve, frontier_entry, load_solves, tier_rates
from harness.cases import load_case


def _solve(right, fix, hinted=False):
    return BlindSolve(model="m", driver="session:m", hinted=hinted, hint="the data pipeline" if hinted else "",
                      date="2026-12-03", harness_commit="x", minutes=5, commands=9, root_cause_right=right,
                      root_cause_reason="reason given by hand", fix_verified="pass" if fix else "fail")


def test_recorded_solves_load_and_count(project_root):
    case = load_case(project_root, "case_04")
    solves = load_solves(case)
    assert solves, "case_04 has a recorded blind solve"
    for folder, solve in solves:
        assert {"transcript.jsonl", "diff.patch", "sample.json"} <= {p.name for p in folder.iterdir()}
        assert solve.commands > 0 and solve.root_cause_reason
    rates = tier_rates([case])["standard"]
    assert rates["cases"] == 1 and rates["blind"] == len(solves)


def test_frontier_entry_rule():
    hard_and_fair = [_solve(True, True), _solve(False, False), _solve(True, False),
                     _solve(True, True, True), _solve(True, True, True), _solve(False, True, True)]
    assert frontier_entry(hard_and_fair)[0]
    too_easy = [_solve(True, True), _solve(True, True), _solve(False, False)] + hard_and_fair[3:]
    assert not frontier_entry(too_easy)[0]
    unfair = hard_and_fair[:3] + [_solve(False, False, True), _solve(False, True, True), _solve(True, True, True)]
    ok, why = frontier_entry(unfair)
    assert not ok and "hinted: 1 of 3" in why
    assert not frontier_entry(hard_and_fair[:2] + hard_and_fair[3:])[0]  # fewer than 3 blind solves

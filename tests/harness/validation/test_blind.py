"""Blind-solve records: they load, count per tier, and the frontier entry rule reads them right."""

from harness.core.cases import load_case
from harness.validation.blind import BlindSolve, frontier_entry, load_solves, tier_rates


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


def test_a_recorded_diff_leaves_out_folders_of_unrecorded_binary_artifacts():
    """case_08's blind solve left a rebuilt tokenization cache: its .npy files are recorded only as 'Binary or
    large file ... differs', so applying the rest would leave a half cache. Those folders are left out."""
    from harness.validation.blind import reapplicable_diff

    diff = ("Binary or large file cache/tok/new/ids.npy differs\n"
            "diff --git a/cache/tok/new/meta.json b/cache/tok/new/meta.json\nnew file mode 100644\n"
            "--- /dev/null\n+++ b/cache/tok/new/meta.json\n@@ -0,0 +1 @@\n+{}\n"
            "diff --git a/dataprep.py b/dataprep.py\n--- a/dataprep.py\n+++ b/dataprep.py\n@@ -1 +1 @@\n-a\n+b\n")
    text, left_out = reapplicable_diff(diff)
    assert left_out == ["cache/tok/new"]
    assert text == "diff --git a/dataprep.py b/dataprep.py\n--- a/dataprep.py\n+++ b/dataprep.py\n@@ -1 +1 @@\n-a\n+b\n"
    assert reapplicable_diff(text) == (text, [])

from harness.analysis.report import display_table, summary_table
from harness.models import SampleResult, Verdict


def _sample(case, epoch, fix, root="unscored", reason="not_judged"):
    verdicts = {"fix_verified": Verdict(criterion="fix_verified", status=fix, grader="t"),
                "root_cause": Verdict(criterion="root_cause", status=root, reason=reason, grader="t")}
    return SampleResult(sample_id=f"a/control/{case}/{epoch}", agent="a", condition="control", case_id=case,
                        epoch=epoch, status="completed", transcript="t", transcript_sha256="x", diff="d",
                        started_at="now", duration_s=1.0, verdicts=verdicts)


def test_summary_counts_scores_and_never_counts_unscored():
    samples = [_sample("case_01", 0, "pass"), _sample("case_02", 0, "fail"),
               _sample("case_03", 0, "pass", root="pass", reason=None)]
    row = summary_table(samples).iloc[0]
    assert row["fix_verified"].startswith("2/3 0.67 [")
    assert row["root_cause"].startswith("1/1") and "2 unscored" in row["root_cause"]


def test_repeats_average_within_case_first():
    samples = [_sample("case_01", 0, "pass"), _sample("case_01", 1, "pass"),
               _sample("case_02", 0, "fail"), _sample("case_02", 1, "pass")]
    assert summary_table(samples).iloc[0]["fix_verified"].startswith("3/4 0.75 [")


def test_display_shows_not_judged():
    table = display_table([_sample("case_01", 0, "pass")])
    assert table.iloc[0]["root_cause"] == "not judged" and table.iloc[0]["fix_verified"] == "pass"

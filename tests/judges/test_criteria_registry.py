"""One registry of criteria (harness.core.criteria): one grader signature, and every list of criteria read from it."""

from __future__ import annotations

import inspect

from harness.core import criteria
from harness.core.cases import load_case
from harness.core.criteria import CRITERIA, Criterion, GradingInput, load_grader, names
from harness.models import Report, Verdict


def test_every_deterministic_criterion_has_a_grader_of_the_one_signature():
    for c in CRITERIA:
        if c.kind == "deterministic":
            grade = load_grader(c.name)
            assert list(inspect.signature(grade).parameters) == ["g"], c.name
        else:
            assert c.grader is None, c.name


def test_the_lists_everywhere_are_the_registry():
    from harness import models
    from harness.analysis import report
    from harness.running import progress
    from judges import metaeval, rubric, sizes

    assert models.CRITERIA_LLM + models.CRITERIA_DETERMINISTIC == criteria.ALL_CRITERIA == report.CRITERIA
    assert metaeval.EVAL_CRITERIA == sizes.EVAL_CRITERIA == names(judge_eval=True)
    assert rubric.criteria_for("proposed") == names(judge_eval=True)
    assert names(progress=True) == ("location_match", "fix_verified", "tampering")
    assert names("deterministic", floor_fails=True) == ("location_match", "fix_verified")
    assert progress.criteria_names is names


def grade_report_given(g: GradingInput) -> Verdict:
    return Verdict(criterion="report_given", status="pass" if g.report else "fail", grader="deterministic")


def test_a_registered_criterion_is_graded_with_the_others(project_root, tmp_path, monkeypatch):
    """The worked example of docs/design.md: a grader of the one signature and one registration line."""
    import judges.grading

    monkeypatch.setattr(criteria, "BY_NAME", {**criteria.BY_NAME, "report_given": Criterion(
        "report_given", "deterministic", f"{__name__}:grade_report_given")})
    monkeypatch.setattr(judges.grading, "CRITERIA_DETERMINISTIC", ("report_given",))
    case = load_case(project_root, "case_01")
    out = judges.grading.grade_deterministic(case, [], Report(root_cause="x"), "", tmp_path, sandbox=None)
    assert out["report_given"].status == "pass"

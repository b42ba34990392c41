"""Assemble one sample's verdicts: deterministic checks now, LLM criteria when a judge is set."""

from __future__ import annotations

from pathlib import Path

from harness.core.cases import Case
from harness.core.criteria import CRITERIA_DETERMINISTIC, CRITERIA_LLM, GradingInput, load_grader
from harness.core.errors import IntegrityError
from harness.models import Report, Verdict


def not_judged(case: Case) -> dict[str, Verdict]:
    """LLM criteria before any judge ran: never pass or fail, always visible as unscored."""
    out = {}
    for criterion in CRITERIA_LLM:
        if criterion == "localization" and not case.key.requires_localization:
            out[criterion] = Verdict(criterion=criterion, status="not_applicable", grader="key",
                                     reason="the key does not require localization")
        else:
            out[criterion] = Verdict(criterion=criterion, status="unscored", reason="not_judged", grader="none")
    return out


def case_file_lines(case: Case) -> dict[str, int]:
    """Line counts of the case's text files as shipped (location_match bounds a span by its file)."""
    out = {}
    for p in case.case_dir.rglob("*"):
        if p.is_file() and not p.is_symlink():
            try:
                out[p.relative_to(case.case_dir).as_posix()] = len(p.read_text(encoding="utf-8").splitlines())
            except (UnicodeDecodeError, OSError):
                out[p.relative_to(case.case_dir).as_posix()] = 0
    return out


def grade_deterministic(case: Case, events, report: Report | None, diff: str, final_workspace: Path, sandbox,
                        guard=None, answer_roots=(), verify=None) -> dict[str, Verdict]:
    """Every deterministic criterion of the registry (``harness.core.criteria``). ``guard`` re-checks the answers
    before the verifier runs; ``verify()`` runs the hidden verifier on the final files (the caller's: graders
    import nothing that runs code).

    Each grader runs on its own: one that raises leaves its criterion ``unscored (grader_error)``
    and the others graded, so nothing in a workspace can blank out a whole sample. (An
    IntegrityError from the guard is not a grader's error: it stops the run.)"""
    g = GradingInput(case=case, events=events, report=report, diff=diff, final_workspace=final_workspace,
                     sandbox=sandbox, guard=guard, answer_roots=answer_roots, file_lines=case_file_lines(case),
                     verify=verify)
    out = {}
    for criterion in CRITERIA_DETERMINISTIC:
        try:
            out[criterion] = load_grader(criterion)(g)
        except IntegrityError:
            raise
        except Exception as exc:
            out[criterion] = Verdict(criterion=criterion, status="unscored", grader="deterministic",
                                     reason=f"grader_error: {type(exc).__name__}: {exc}"[:300])
    return out

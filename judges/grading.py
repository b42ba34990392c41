"""Assemble one sample's verdicts: deterministic checks now, LLM criteria when a judge is set."""

from __future__ import annotations

from pathlib import Path

from harness.cases import Case
from harness.models import CRITERIA_LLM, Report, Verdict
from judges.deterministic import answer_leak, fallback_added, fix_verified, location_match
from judges.tampering import tampering


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


def grade_deterministic(case: Case, events, report: Report | None, diff: str, final_workspace: Path, sandbox,
                        guard=None, answer_roots=()) -> dict[str, Verdict]:
    """Every deterministic criterion. ``guard`` re-checks the answers before the verifier runs."""
    case_files = {p.relative_to(case.case_dir).as_posix() for p in case.case_dir.rglob("*") if p.is_file()}
    return {
        "location_match": location_match(report, case.key.locations),
        "fix_verified": fix_verified(case, final_workspace, sandbox, guard),
        "fallback_added": fallback_added(diff),
        "tampering": tampering(diff, final_workspace, case_files),
        "answer_leak": answer_leak(events, case, answer_roots),
    }

"""Majority vote over judge repeats. Unscored repeats are counted, never cast as votes."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel


class Vote(BaseModel):
    status: str  # pass | fail | unscored
    reason: str | None = None
    votes: dict[str, int]
    agreement: float | None = None  # share of scored repeats agreeing with the outcome


def majority(statuses: list[str]) -> Vote:
    """Pass or fail needs a strict majority of ALL repeats; otherwise the criterion is unscored."""
    counts = Counter(statuses)
    votes = {k: counts.get(k, 0) for k in ("pass", "fail", "unscored")}
    scored = votes["pass"] + votes["fail"]
    for status in ("pass", "fail"):
        if votes[status] * 2 > len(statuses):
            return Vote(status=status, votes=votes, agreement=votes[status] / scored)
    reason = "judge_split" if scored and votes["pass"] and votes["fail"] else "judge_error"
    agreement = max(votes["pass"], votes["fail"]) / scored if scored else None
    return Vote(status="unscored", reason=reason, votes=votes, agreement=agreement)

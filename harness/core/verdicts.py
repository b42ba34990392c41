"""A criterion's verdict and its evidence (the criteria themselves: ``harness.core.criteria``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from harness.core.record import Record

VerdictStatus = Literal["pass", "fail", "not_applicable", "unscored"]
# the criteria's names, read from their registry (harness.core.criteria)


class Evidence(Record):
    event_id: int
    quote: str


class Verdict(Record):
    """One criterion's grade. ``unscored`` is never counted as pass or fail, but always shown."""

    criterion: str
    status: VerdictStatus
    reason: str | None = Field(default=None, description="why unscored (not_judged, judge_error, ...) or a short why")
    evidence: list[Evidence] = Field(default_factory=list)
    reasoning: str = ""
    grader: str
    details: dict[str, Any] = Field(default_factory=dict)

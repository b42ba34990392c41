"""Every criterion, in one registry: the records, grading, validate, progress, reports and the judge's
meta-evaluation read their lists from here, so a criterion is added in one place.

A deterministic criterion names its grader as ``"module:function"``, imported when a sample is graded (this
module imports nothing of the project, so every layer may read it). Every grader has one signature,
``grade(g: GradingInput) -> Verdict``; the LLM criteria are graded by the judge (``judges.llm``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal


@dataclass(frozen=True)
class Criterion:
    name: str
    kind: Literal["llm", "deterministic"]
    grader: str | None = None  # deterministic: "module:function", called as function(GradingInput) -> Verdict
    # validate: the null agent must fail it (the reference agent passes every deterministic one)
    floor_fails: bool = False
    progress: bool = False  # named in the progress line of each finished sample
    judge_eval: bool = False  # measured by judge-eval and `judge --dry-run` (the judge grades it, at least for plans)


CRITERIA: tuple[Criterion, ...] = (
    Criterion("root_cause", "llm", judge_eval=True),
    Criterion("discriminating_test", "llm", judge_eval=True),
    Criterion("localization", "llm", judge_eval=True),
    Criterion("unsupported_change", "llm", judge_eval=True),
    Criterion("location_match", "deterministic", "judges.deterministic:grade_location_match", floor_fails=True,
              progress=True),
    Criterion("fix_verified", "deterministic", "judges.deterministic:grade_fix_verified", floor_fails=True,
              progress=True),
    # fallback_added is computed from the final diff in runs; the judge grades it only for written plans
    Criterion("fallback_added", "deterministic", "judges.deterministic:grade_fallback_added", judge_eval=True),
    Criterion("tampering", "deterministic", "judges.tampering:grade_tampering", progress=True),
    Criterion("answer_leak", "deterministic", "judges.deterministic:grade_answer_leak"),
)
BY_NAME = {c.name: c for c in CRITERIA}


def names(kind: str | None = None, **flags: bool) -> tuple[str, ...]:
    """The criteria of ``kind`` (None: all) whose ``flags`` (floor_fails, progress, judge_eval) match, in order."""
    return tuple(c.name for c in CRITERIA
                 if (kind is None or c.kind == kind) and all(getattr(c, k) == v for k, v in flags.items()))


CRITERIA_LLM = names("llm")
CRITERIA_DETERMINISTIC = names("deterministic")
ALL_CRITERIA = CRITERIA_LLM + CRITERIA_DETERMINISTIC


@dataclass
class GradingInput:
    """What a deterministic grader receives for one sample: it grades these, never a run folder or an agent."""

    case: Any  # harness.core.cases.Case: the case, its manifest and key
    events: list  # the transcript's events
    report: Any  # the agent's final Report, or None
    diff: str  # the final workspace's diff against the case
    final_workspace: Path
    sandbox: Any  # where the hidden verifier runs
    guard: Callable[[], None] | None = None  # re-checks the answers' hash before the verifier runs
    answer_roots: tuple | list = ()  # the answers folders whose paths must not appear in the transcript
    file_lines: dict[str, int] = field(default_factory=dict)  # line counts of the case's files as shipped
    # runs the hidden verifier on a fresh copy of final_workspace (harness.workspaces.verification), returning its
    # VerifierRun: given by the caller, so the graders never import the layers that run code
    verify: Callable[[], Any] | None = None


def load_grader(criterion: str) -> Callable[[GradingInput], Any]:
    """The grader function of a deterministic criterion, imported on first use."""
    module, _, function = (BY_NAME[criterion].grader or "").partition(":")
    if not function:
        raise ValueError(f"criterion {criterion!r} has no grader (LLM criteria are graded by the judge)")
    return getattr(importlib.import_module(module), function)

"""``report RUN --why CASE``: why each check of a case failed, read from the recorded verdicts.

Nothing is re-graded: the reason is the verdict's own; for ``fix_verified`` the hidden verifier's first
failing check (name, seed, reason or value) is added, so a reader sees what the fix did not do.
"""

from __future__ import annotations

from pydantic import BaseModel

from harness.core.errors import ConfigError
from harness.core.verifier_output import first_failed_check
from harness.models import SampleResult, Verdict


class FailedCheck(BaseModel):
    criterion: str
    sample: str
    reason: str
    first_failing_check: str | None = None


def first_failing_check(verdict: Verdict) -> str | None:
    """The verifier's first failed check row (``details.result.checks``), as ``name (seed S): reason``."""
    return first_failed_check(verdict.details.get("result") if isinstance(verdict.details, dict) else None)


def failed_checks(samples: list[SampleResult], case_id: str) -> list[FailedCheck]:
    """Every failing verdict of ``case_id``'s samples, in sample then criterion order."""
    mine = sorted((s for s in samples if s.case_id == case_id), key=lambda s: (s.condition, s.epoch))
    if not mine:
        known = ", ".join(sorted({s.case_id for s in samples})) or "none"
        raise ConfigError(f"--why {case_id}: the run has no sample of that case (its cases: {known})")
    out = []
    for s in mine:
        for name, v in s.verdicts.items():
            if v.status != "fail":
                continue
            first = first_failing_check(v) if name == "fix_verified" else None
            out.append(FailedCheck(criterion=name, sample=f"{s.condition}/epoch {s.epoch}",
                                   reason=v.reason or v.reasoning or "(no reason recorded)",
                                   first_failing_check=first))
    return out


def printable(text: str) -> str:
    """Agent-influenced text (file names, verifier output) with control characters shown, never executed by
    the terminal (an escape sequence in a reported path must not rewrite the screen)."""
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)


def why_lines(samples: list[SampleResult], case_id: str) -> list[str]:
    checks = failed_checks(samples, case_id)
    n = len([s for s in samples if s.case_id == case_id])
    if not checks:
        return [f"{case_id}: no check failed in its {n} sample(s) (unscored and n/a verdicts are not failures)"]
    lines = [f"{case_id}: {len(checks)} failing check(s) over {n} sample(s)"]
    for c in checks:
        lines.append(f"- {c.criterion} [{c.sample}]: {printable(c.reason)}")
        if c.first_failing_check:
            lines.append(f"    first failing verifier check: {printable(c.first_failing_check)}")
    return lines

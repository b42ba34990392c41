"""Scores with honest error bars (docs/design.md, Statistics): the case is the unit of analysis.

A condition's score on a criterion is the mean over cases of the per-case pass rate over
scored samples. With one scored sample per case it is a binomial rate and gets a Wilson
interval; with repeats it gets a t interval over the case means.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

# two-sided 95% t quantiles by degrees of freedom; beyond 30 the normal value is close enough
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
        18: 2.101, 19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042}


def t975(df: int) -> float:
    if df in T975:
        return T975[df]
    below = [d for d in T975 if d <= df]
    return T975[max(below)] if df <= 30 else 1.96


class Score(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mean: float | None
    low: float | None
    high: float | None
    n_cases: int
    method: str


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def case_score(per_case: dict[str, list[bool]]) -> Score:
    """``per_case``: case id -> pass/fail of each scored sample (unscored ones already left out)."""
    cases = {c: v for c, v in per_case.items() if v}
    n = len(cases)
    if n == 0:
        return Score(mean=None, low=None, high=None, n_cases=0, method="none")
    means = [sum(v) / len(v) for v in cases.values()]
    mean = sum(means) / n
    if all(len(v) == 1 for v in cases.values()):
        low, high = wilson(sum(means), n)
        return Score(mean=mean, low=low, high=high, n_cases=n, method="wilson")
    if n == 1:
        return Score(mean=mean, low=None, high=None, n_cases=1, method="t")
    sd = math.sqrt(sum((m - mean) ** 2 for m in means) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return Score(mean=mean, low=max(0.0, mean - half), high=min(1.0, mean + half), n_cases=n, method="t")

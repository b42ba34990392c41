"""How good is the judge? Confusion matrix, sensitivity, specificity and Cohen's kappa
against human labels, and the raters' agreement with each other (the ceiling).

Positive means ``pass``. Items where either side is not_applicable or unscored are left
out of the matrix and counted beside it.
"""

from __future__ import annotations

from itertools import combinations

from pydantic import BaseModel

from harness.models import CRITERIA_LLM
from judges.labeled import LabeledItem


class Agreement(BaseModel):
    criterion: str
    a: str  # who is compared ...
    b: str  # ... with whom (the reference, e.g. a human rater)
    tp: int = 0  # a pass, b pass
    fp: int = 0  # a pass, b fail
    fn: int = 0  # a fail, b pass
    tn: int = 0
    excluded: int = 0  # n/a or unscored on either side
    unscored: int = 0  # of which: a unscored

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @staticmethod
    def _ratio(num: int, den: int) -> float | None:
        return num / den if den else None

    @property
    def sensitivity(self) -> float | None:
        return self._ratio(self.tp, self.tp + self.fn)

    @property
    def specificity(self) -> float | None:
        return self._ratio(self.tn, self.tn + self.fp)

    @property
    def accuracy(self) -> float | None:
        return self._ratio(self.tp + self.tn, self.n)

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa (p_o - p_e) / (1 - p_e); None when p_e = 1 (no variation: undefined)."""
        n = self.n
        if not n:
            return None
        p_o = (self.tp + self.tn) / n
        p_e = ((self.tp + self.fp) * (self.tp + self.fn) + (self.fn + self.tn) * (self.fp + self.tn)) / n**2
        return None if p_e == 1 else (p_o - p_e) / (1 - p_e)

    def add(self, a: str | None, b: str | None) -> None:
        if a == "unscored":
            self.unscored += 1
        if a not in ("pass", "fail") or b not in ("pass", "fail"):
            self.excluded += 1
            return
        field = {("pass", "pass"): "tp", ("pass", "fail"): "fp", ("fail", "pass"): "fn", ("fail", "fail"): "tn"}[(a, b)]
        setattr(self, field, getattr(self, field) + 1)

    def row(self) -> dict:
        fmt = lambda x: "-" if x is None else f"{x:.2f}"
        return {"criterion": self.criterion, "judge/rater": self.a, "vs": self.b, "n": self.n,
                "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
                "sensitivity": fmt(self.sensitivity), "specificity": fmt(self.specificity),
                "accuracy": fmt(self.accuracy), "kappa": fmt(self.kappa),
                "excluded": self.excluded, "unscored": self.unscored}


def raters(items: list[LabeledItem]) -> list[str]:
    return sorted({r for item in items for r in item.labels})


def rater_agreement(items: list[LabeledItem]) -> list[Agreement]:
    """Every pair of raters, per criterion: the human ceiling a judge should approach."""
    out = []
    for a, b in combinations(raters(items), 2):
        for c in CRITERIA_LLM:
            agg = Agreement(criterion=c, a=a, b=b)
            for item in items:
                if a in item.labels and b in item.labels:
                    agg.add(item.labels[a].get(c), item.labels[b].get(c))
            out.append(agg)
    return out


def judge_agreement(items: list[LabeledItem], verdicts: dict[str, dict[str, str]], judge_name: str) -> list[Agreement]:
    """The judge's statuses (item id -> criterion -> status) against every rater, per criterion."""
    out = []
    for rater in raters(items):
        for c in CRITERIA_LLM:
            agg = Agreement(criterion=c, a=judge_name, b=rater)
            for item in items:
                if rater in item.labels:
                    agg.add(verdicts.get(item.id, {}).get(c), item.labels[rater].get(c))
            out.append(agg)
    return out


def judge_items(items: list[LabeledItem], judge, progress=None) -> dict[str, dict]:
    """Run the judge over a labeled set: item id -> criterion -> Verdict."""
    out = {}
    for item in items:
        if progress:
            progress(item.id)
        out[item.id] = judge.judge(item.events, item.key, item.transcript_sha256, item.mode)
    return out


def family_warnings(items: list[LabeledItem], judge_spec: str) -> list[str]:
    from judges.family import same_family_warning

    agents = sorted({i.agent for i in items if i.agent})
    return [w for w in (same_family_warning(judge_spec, a) for a in agents) if w]

"""How good is the judge? Confusion matrix, sensitivity, specificity, accuracy and Cohen's kappa
against human labels, with bootstrap intervals over items; the raters' agreement with each
other (the ceiling); and what a judge that always says pass, or always fail, would score (the floor).

Positive means ``pass``. Items where either side is not_applicable or unscored are left
out of the matrix and counted beside it. A criterion with fewer than ``MIN_EACH`` passes or
fails among the labels cannot tell a useful judge from a constant one: that is warned about.
"""

from __future__ import annotations

import random
from itertools import combinations

from pydantic import BaseModel, Field

from harness.core.criteria import names as criteria_names
from judges.labeled import LabeledItem

# What judge-eval measures: the judge's criteria, and fallback_added, which the judge grades for written
# plans (in runs it is computed from the final diff, so an executed item's fallback_added is unscored here)
EVAL_CRITERIA = criteria_names(judge_eval=True)

BOOTSTRAP = 2000  # resamples for the intervals
MIN_EACH = 5  # passes and fails a criterion's labels need before kappa means much


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
    pairs: list[tuple[str, str]] = Field(default_factory=list, description="(a, b) per scored item, for the bootstrap")
    n_boot: int = BOOTSTRAP
    seed: int = 0

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
        return kappa(self.tp, self.fp, self.fn, self.tn)

    def interval(self, stat: str) -> tuple[float, float] | None:
        """95% percentile bootstrap interval of ``stat`` ('kappa' or 'accuracy') over the scored items."""
        return bootstrap(self.pairs, stat, self.n_boot, self.seed)

    def add(self, a: str | None, b: str | None) -> None:
        if a == "unscored":
            self.unscored += 1
        if a not in ("pass", "fail") or b not in ("pass", "fail"):
            self.excluded += 1
            return
        cell = CELLS[(a, b)]
        setattr(self, cell, getattr(self, cell) + 1)
        self.pairs.append((a, b))

    def row(self) -> dict:
        fmt = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
        ci = lambda iv: "-" if iv is None else f"[{iv[0]:.2f}, {iv[1]:.2f}]"  # noqa: E731
        return {"criterion": self.criterion, "judge/rater": self.a, "vs": self.b, "n": self.n,
                "tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn,
                "sensitivity": fmt(self.sensitivity), "specificity": fmt(self.specificity),
                "accuracy": fmt(self.accuracy), "accuracy 95% CI": ci(self.interval("accuracy")),
                "kappa": fmt(self.kappa), "kappa 95% CI": ci(self.interval("kappa")),
                "excluded": self.excluded, "unscored": self.unscored}


CELLS = {("pass", "pass"): "tp", ("pass", "fail"): "fp", ("fail", "pass"): "fn", ("fail", "fail"): "tn"}


def kappa(tp: int, fp: int, fn: int, tn: int) -> float | None:
    n = tp + fp + fn + tn
    if not n:
        return None
    p_o = (tp + tn) / n
    p_e = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2
    return None if p_e == 1 else (p_o - p_e) / (1 - p_e)


def bootstrap(pairs: list[tuple[str, str]], stat: str, n_boot: int = 2000, seed: int = 0) -> tuple[float, float] | None:
    """Percentile bootstrap (resampling items with replacement) of kappa or accuracy.

    Resamples where kappa is undefined (no variation on both sides) are dropped; None when
    there are no items, or too few defined resamples to say anything."""
    if not pairs or n_boot <= 0:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(n_boot):
        counts = dict.fromkeys(CELLS.values(), 0)
        for _ in range(len(pairs)):
            counts[CELLS[pairs[rng.randrange(len(pairs))]]] += 1
        if stat == "kappa":
            v = kappa(counts["tp"], counts["fp"], counts["fn"], counts["tn"])
        else:
            v = (counts["tp"] + counts["tn"]) / len(pairs)
        if v is not None:
            values.append(v)
    if len(values) < max(20, n_boot // 10):
        return None
    values.sort()
    lo, hi = values[int(0.025 * (len(values) - 1))], values[int(round(0.975 * (len(values) - 1)))]
    return lo, hi


def raters(items: list[LabeledItem]) -> list[str]:
    return sorted({r for item in items for r in item.labels})


def rater_agreement(items: list[LabeledItem], n_boot: int = BOOTSTRAP, seed: int = 0) -> list[Agreement]:
    """Every pair of raters, per criterion: the human ceiling a judge should approach."""
    out = []
    for a, b in combinations(raters(items), 2):
        for c in EVAL_CRITERIA:
            agg = Agreement(criterion=c, a=a, b=b, n_boot=n_boot, seed=seed)
            for item in items:
                if a in item.labels and b in item.labels:
                    agg.add(item.labels[a].get(c), item.labels[b].get(c))
            out.append(agg)
    return out


def judge_agreement(items: list[LabeledItem], verdicts: dict[str, dict[str, str]], judge_name: str,
                    n_boot: int = BOOTSTRAP, seed: int = 0) -> list[Agreement]:
    """The judge's statuses (item id -> criterion -> status) against every rater, per criterion."""
    out = []
    for rater in raters(items):
        for c in EVAL_CRITERIA:
            agg = Agreement(criterion=c, a=judge_name, b=rater, n_boot=n_boot, seed=seed)
            for item in items:
                if rater in item.labels:
                    agg.add(verdicts.get(item.id, {}).get(c), item.labels[rater].get(c))
            out.append(agg)
    return out


def constant_agreement(items: list[LabeledItem], status: str, n_boot: int = BOOTSTRAP,
                       seed: int = 0) -> list[Agreement]:
    """What a judge that answers ``status`` on every item scores: the floor a real judge must clear."""
    verdicts = {i.id: {c: status for c in EVAL_CRITERIA} for i in items}
    return judge_agreement(items, verdicts, f"always-{status}", n_boot, seed)


def balance_warnings(items: list[LabeledItem], min_each: int = MIN_EACH) -> list[str]:
    """One warning per (rater, criterion) with fewer than ``min_each`` passes or fails among its labels."""
    out = []
    for rater in raters(items):
        for c in EVAL_CRITERIA:
            labels = [i.labels[rater].get(c) for i in items if rater in i.labels]
            n_pass, n_fail = labels.count("pass"), labels.count("fail")
            if n_pass + n_fail == 0:
                continue  # the rater did not label this criterion at all: nothing is measured, nothing to warn
            if n_pass < min_each or n_fail < min_each:
                out.append(f"{c} ({rater}): {n_pass} pass and {n_fail} fail labels; with fewer than {min_each} of "
                           "either, kappa and sensitivity/specificity cannot tell a useful judge from a constant one")
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

"""A run's dollar budget (``--budget-usd``): estimated before the run starts, watched while it runs.

Before: the estimate is the cost per sample measured in an earlier run (``--estimate-from RUN``) or the
per-sample limit (``--max-cost``, an upper bound on the agent's spend that leaves the judge out) times the
samples to run; neither is an error naming both, and an estimate over the budget is refused unless
``--over-budget``. While running: no new sample starts once the spend (agent and judge, from each finished
sample) reaches the budget, or once a sample's cost is unknown (a budget cannot be kept blind). Samples
already running finish; the rest are not started, and ``resume`` with a larger ``--budget-usd`` runs them.
"""

from __future__ import annotations

import threading
from pathlib import Path

from harness.core.errors import ConfigError
from harness.core.run_records import SampleResult
from harness.core.spend import sample_cost, total


class Budget:
    """The spend so far against the limit; updated from the run's main thread, read by its workers."""

    def __init__(self, limit_usd: float, spent_usd: float = 0.0):
        self.limit_usd, self.spent_usd = limit_usd, spent_usd
        self.unknown: list[str] = []  # samples whose cost is unknown: the spend cannot be known either
        self._lock = threading.Lock()

    def add(self, sample: SampleResult) -> None:
        cost = sample_cost(sample)
        with self._lock:
            if cost is None:
                self.unknown.append(sample.sample_id)
            else:
                self.spent_usd += cost

    def reached(self) -> bool:
        with self._lock:
            return bool(self.unknown) or self.spent_usd >= self.limit_usd

    def why(self) -> str:
        if self.unknown:
            return f"the cost of {self.unknown[0]} is unknown (no price), so the spend cannot be kept under the budget"
        return f"${self.spent_usd:.4f} spent of the ${self.limit_usd:g} budget"


def estimate(n_samples: int, estimate_from: str | None, max_cost: float | None) -> tuple[float, str]:
    """Dollars for ``n_samples`` more samples, and where the figure comes from."""
    if estimate_from is not None:
        from harness.core.results import read_samples

        samples = read_samples(Path(estimate_from))
        spent = total(sample_cost(s) for s in samples)
        if not samples or spent is None:
            raise ConfigError(f"--estimate-from {estimate_from}: " + ("it has no samples" if not samples else
                              "some of its samples have no known cost (a model without a price)"))
        per = spent / len(samples)
        return per * n_samples, f"${per:.4f} per sample, measured in {estimate_from}"
    if max_cost is not None:
        return max_cost * n_samples, (f"--max-cost ${max_cost:g} per sample (an upper bound on the agent; "
                                      "judge not included)")
    raise ConfigError("--budget-usd needs an estimate before the run starts: give --estimate-from RUN (the cost per "
                      "sample of an earlier run) or --max-cost USD (the per-sample limit)")


def check_budget(limit_usd: float, spent_usd: float, n_samples: int, estimate_from: str | None,
                 max_cost: float | None, over_budget: bool) -> str:
    """The estimate as a sentence; refused (ConfigError) when over the budget unless ``over_budget``."""
    cost, source = estimate(n_samples, estimate_from, max_cost)
    text = (f"estimated ${cost:.4f} for {n_samples} sample(s) ({source})"
            + (f" plus ${spent_usd:.4f} already spent" if spent_usd else "") + f"; budget ${limit_usd:g}")
    if spent_usd + cost > limit_usd and not over_budget:
        raise ConfigError(f"{text}: over the budget. Lower --epochs or the cases, raise --budget-usd, or pass "
                          "--over-budget to start anyway (no new sample starts once the budget is spent)")
    return text

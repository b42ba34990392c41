"""What one sample spent in dollars, agent and judge: for the run budget (running) and the cost tables (analysis).

Agent cost is the sample's recorded ``usage.cost_usd``. Judge cost is summed from the verdicts' judge runs
(``details.runs``) that called the model in this run: one answered from the verdict cache cost nothing now.
A cost that was not priced stays None and makes every total it would enter None: never counted as zero.
"""

from __future__ import annotations

from pydantic import BaseModel

from harness.core.run_records import SampleResult


class JudgeSpend(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    calls: int = 0
    cost_usd: float | None = 0.0


def judge_spend(sample: SampleResult) -> JudgeSpend:
    """The judge calls made for this sample's verdicts in this run (cache hits excluded)."""
    spend = JudgeSpend()
    for v in sample.verdicts.values():
        runs = v.details.get("runs") if isinstance(v.details, dict) else None
        for run in runs if isinstance(runs, list) else []:
            if not isinstance(run, dict) or run.get("cached") or not run.get("attempts"):
                continue
            spend.calls += int(run.get("attempts") or 0)
            spend.input_tokens += int(run.get("input_tokens") or 0)
            spend.output_tokens += int(run.get("output_tokens") or 0)
            spend.cache_read_tokens += int(run.get("cache_read_tokens") or 0)
            cost = run.get("cost_usd")  # absent: judged before costs were recorded, so unknown
            spend.cost_usd = None if spend.cost_usd is None or not isinstance(cost, (int, float)) \
                else spend.cost_usd + float(cost)
    return spend


def total(values) -> float | None:
    """The sum, or None when any part is unknown."""
    values = list(values)
    return None if any(v is None for v in values) else float(sum(values))


def sample_cost(sample: SampleResult) -> float | None:
    """Agent plus judge dollars of one sample; None when either is unknown."""
    return total([sample.usage.cost_usd, judge_spend(sample).cost_usd])

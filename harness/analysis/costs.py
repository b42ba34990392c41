"""What a run cost, per sample, per arm and in total (agent and judge apart), and what more repeats would buy.

Agent cost is the sample's recorded ``usage.cost_usd`` (summed from its ``usage`` events). Judge cost is summed
from the verdicts' judge runs (``details.runs``) that called the model in this run: a run answered from the
verdict cache cost nothing now. A cost that was not priced stays unknown (None) and makes every total it
would enter unknown: never counted as zero.

"What more repeats buy": the minimum detectable effect (``harness.analysis.stats.mde``, 80% power, 5%
two-sided) at K, 2K and 4K repeats next to what a run of that size would cost, so a reader sees the price of
each percentage point of MDE. With two arms it comes from their paired difference; with one, it is the MDE of
comparing the arm with another of the same variance, assuming no case × arm interaction (a lower bound).
"""

from __future__ import annotations

from pydantic import BaseModel

from harness.analysis.report import SOLVED, per_case, samples_frame
from harness.analysis.stats import mde, mde_at, paired_diff, within_variance
from harness.core.cases import tier_of
from harness.core.spend import judge_spend
from harness.core.spend import total as _total
from harness.models import SampleResult

MDE_CRITERIA = (SOLVED, "root_cause", "fix_verified")  # the first with scored samples in every arm is used


class ArmCost(BaseModel):
    condition: str
    tier: str
    samples: int
    agent_usd: float | None
    judge_usd: float | None
    input_tokens: int
    cache_read_tokens: int
    output_tokens: int

    @property
    def per_sample(self) -> float | None:
        total = _total([self.agent_usd, self.judge_usd])
        return None if total is None or not self.samples else total / self.samples


def arm_costs(samples: list[SampleResult]) -> list[ArmCost]:
    arms: dict[tuple[str, str], list[SampleResult]] = {}
    for s in samples:
        arms.setdefault((s.condition, tier_of(s.case_id)), []).append(s)
    out = []
    for (cond, tier), group in sorted(arms.items()):
        out.append(ArmCost(condition=cond, tier=tier, samples=len(group),
                           agent_usd=_total([s.usage.cost_usd for s in group]),
                           judge_usd=_total([judge_spend(s).cost_usd for s in group]),
                           input_tokens=sum(s.usage.input_tokens for s in group),
                           cache_read_tokens=sum(s.usage.cache_read_tokens for s in group),
                           output_tokens=sum(s.usage.output_tokens for s in group)))
    return out


class RepeatsRow(BaseModel):
    tier: str
    criterion: str
    k: float
    mde: float | None
    cost_usd: float | None


def repeats_table(samples: list[SampleResult], multipliers=(1, 2, 4)) -> list[RepeatsRow]:
    """Per tier: the MDE at K × each multiplier and the cost of a run of that size (same cases and arms)."""
    df = samples_frame(samples)
    rows: list[RepeatsRow] = []
    for tier, sub in df.groupby("tier") if not df.empty else []:
        conds = sorted(sub["condition"].unique())
        crit = next((c for c in MDE_CRITERIA if all(sub[sub["condition"] == a][c].isin(["pass", "fail"]).any()
                                                    for a in conds)), None)
        if crit is None:
            continue
        arms = [per_case(sub[sub["condition"] == a], crit) for a in conds]
        n_cases = sub["case"].nunique()
        k = len(sub) / max(1, n_cases * len(conds))
        tier_samples = [s for s in samples if tier_of(s.case_id) == tier]
        spent = _total([_total([s.usage.cost_usd, judge_spend(s).cost_usd]) for s in tier_samples])
        per_sample = None if spent is None else spent / len(tier_samples)
        diff = paired_diff(arms[0], arms[1]) if len(arms) == 2 else None
        for m in multipliers:
            if diff is not None:
                value = mde_at(diff, k * m)
            else:
                value = mde(len(arms[0]), 0.0, 2 * within_variance(arms[0]), k * m)
            cost = None if per_sample is None else per_sample * n_cases * len(conds) * k * m
            rows.append(RepeatsRow(tier=tier, criterion=crit, k=k * m, mde=value, cost_usd=cost))
    return rows


def money(v: float | None) -> str:
    if v is None:
        return "unknown"
    return f"${v:,.2f}" if v >= 1 else f"${v:.4f}"


def cost_lines(samples: list[SampleResult], width: int) -> list[str]:
    """The run's cost, per arm and in total (agent vs judge), and the MDE each K would buy at what price."""
    from harness.analysis.compact import Column, render, wrap_words

    arms = arm_costs(samples)
    if not arms:
        return []
    cols = [Column("arm", [f"{a.condition}/{a.tier}" for a in arms], key=True),
            Column("samples", [str(a.samples) for a in arms], "right"),
            Column("agent", [money(a.agent_usd) for a in arms], "right"),
            Column("judge", [money(a.judge_usd) for a in arms], "right"),
            Column("per sample", [money(a.per_sample) for a in arms], "right"),
            Column("in tok", [str(a.input_tokens) for a in arms], "right"),
            Column("cached", [str(a.cache_read_tokens) for a in arms], "right"),
            Column("out tok", [str(a.output_tokens) for a in arms], "right")]
    agent, judge = _total([a.agent_usd for a in arms]), _total([a.judge_usd for a in arms])
    lines = ["cost (USD; unknown = a model without a price)"] + render(cols, width)
    lines += wrap_words([f"run total {money(_total([agent, judge]))}:", f"agent {money(agent)},",
                         f"judge {money(judge)}"], width, sep=" ")
    rows = repeats_table(samples)
    if rows:
        base = {r.tier: r for r in rows if r.k == min(x.k for x in rows if x.tier == r.tier)}
        per_pp = []
        for r in rows:
            b = base[r.tier]
            gained = None if r.mde is None or b.mde is None else (b.mde - r.mde) * 100
            extra = None if r.cost_usd is None or b.cost_usd is None else r.cost_usd - b.cost_usd
            per_pp.append("-" if r is b or gained is None or extra is None or gained <= 0 else money(extra / gained))
        mcols = [Column("tier", [r.tier for r in rows], key=True), Column("criterion", [r.criterion for r in rows]),
                 Column("K", [f"{r.k:g}" for r in rows], "right"),
                 Column("MDE", ["n/a" if r.mde is None else f"{r.mde * 100:.0f} pp" for r in rows], "right"),
                 Column("run cost", [money(r.cost_usd) for r in rows], "right"),
                 Column("$ per pp of MDE gained", per_pp, "right")]
        lines += ["", "what more repeats buy (MDE: 80% power, 5% two-sided, over the same cases)"]
        lines += render(mcols, width)
    return lines

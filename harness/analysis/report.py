"""Results tables from a run folder (pandas). Unscored cells are counted and shown, never dropped.

The criteria come from ``harness.models`` (LLM + deterministic) plus one derived here:
``solved`` = root_cause ∧ fix_verified, unscored when either is (and n/a when either is n/a), so a
run is never credited with a solve the judge did not see.

Every table says the tier of its rows (derived from the case id, ``harness.core.cases.tier_of``, so runs made
before tiers read as standard). A run over both tiers gets separate summary rows per tier, never pooled.
"""

from __future__ import annotations

import pandas as pd

from harness.analysis.stats import Score, case_score
from harness.core.cases import tier_of
from harness.core.criteria import ALL_CRITERIA
from harness.models import SampleResult

CRITERIA = ALL_CRITERIA
SOLVED = "solved"
REPORTED = CRITERIA + (SOLVED,)
CELL = {"pass": "pass", "fail": "FAIL", "not_applicable": "n/a"}
ERRORED = ("agent_error", "infra_error")


def cell(verdict) -> str:
    if verdict is None:
        return "-"
    if verdict.status == "unscored":
        return "not judged" if verdict.reason == "not_judged" else f"unscored ({verdict.reason})"
    return CELL[verdict.status]


def solved_status(sample: SampleResult) -> str:
    """root_cause ∧ fix_verified: unscored if either is unscored or missing, n/a if either is n/a."""
    parts = [sample.verdicts.get(c) for c in ("root_cause", "fix_verified")]
    statuses = [v.status if v else "unscored" for v in parts]
    if "unscored" in statuses:
        return "unscored"
    if "not_applicable" in statuses:
        return "not_applicable"
    return "pass" if statuses == ["pass", "pass"] else "fail"


def status_of(sample: SampleResult, criterion: str) -> str | None:
    if criterion == SOLVED:
        return solved_status(sample)
    v = sample.verdicts.get(criterion)
    return v.status if v else None


def _ordered(samples: list[SampleResult]) -> list[SampleResult]:
    return sorted(samples, key=lambda s: (s.condition, s.case_id, s.epoch))


def samples_frame(samples: list[SampleResult]) -> pd.DataFrame:
    """One row per sample (the seed benchmark's scores.tsv): verdict status per criterion, usage, timing."""
    rows = []
    for s in _ordered(samples):
        row = {"sample_id": s.sample_id, "agent": s.agent, "condition": s.condition, "case": s.case_id,
               "tier": tier_of(s.case_id), "epoch": s.epoch, "status": s.status}
        for c in REPORTED:
            row[c] = status_of(s, c)
        row.update({"input_tokens": s.usage.input_tokens, "output_tokens": s.usage.output_tokens,
                    "cost_usd": s.usage.cost_usd, "tool_errors": s.tool_errors, "duration_s": round(s.duration_s, 3)})
        rows.append(row)
    columns = ["sample_id", "agent", "condition", "case", "tier", "epoch", "status", *REPORTED,
               "input_tokens", "output_tokens", "cost_usd", "tool_errors", "duration_s"]
    return pd.DataFrame(rows, columns=columns)


def display_table(samples: list[SampleResult]) -> pd.DataFrame:
    """The per-sample table people read: human cell labels."""
    rows = []
    for s in sorted(samples, key=lambda s: (s.case_id, s.condition, s.epoch)):
        row = {"case": s.case_id, "tier": tier_of(s.case_id), "condition": s.condition, "epoch": s.epoch,
               "status": s.status}
        row.update({c: cell(s.verdicts.get(c)) for c in CRITERIA})
        solved = solved_status(s)
        row[SOLVED] = "unscored" if solved == "unscored" else CELL[solved]
        row["time_s"] = f"{s.duration_s:.1f}"
        rows.append(row)
    return pd.DataFrame(rows)


def per_case(df: pd.DataFrame, criterion: str) -> dict[str, list[bool]]:
    """case -> pass/fail of each scored sample of ``df`` (one arm) on ``criterion``."""
    scored = df[df[criterion].isin(["pass", "fail"])]
    return {case: list(g[criterion] == "pass") for case, g in scored.groupby("case")}


def criterion_score(sub: pd.DataFrame, criterion: str) -> Score:
    """Mean over cases of the per-case pass rate, over scored (pass/fail) samples only."""
    return case_score(per_case(sub, criterion))


def criterion_counts(samples: list[SampleResult]) -> pd.DataFrame:
    """Per condition, tier and criterion: passes, scored (pass+fail), n/a and unscored counts."""
    df = samples_frame(samples)
    rows = []
    for (cond, tier), sub in (df.groupby(["condition", "tier"]) if not df.empty else []):
        for c in REPORTED:
            col = sub[c]
            rows.append({"condition": cond, "tier": tier, "criterion": c, "pass": int((col == "pass").sum()),
                         "scored": int(col.isin(["pass", "fail"]).sum()),
                         "not_applicable": int((col == "not_applicable").sum()),
                         "unscored": int((~col.isin(["pass", "fail", "not_applicable"])).sum()), "n": len(col),
                         "errored": int(sub["status"].isin(ERRORED).sum())})
    return pd.DataFrame(rows)


def summary_table(samples: list[SampleResult]) -> pd.DataFrame:
    """One row per condition and tier: per criterion 'pass/scored, score [95% CI]', unscored and n/a beside."""
    df = samples_frame(samples)
    counts = criterion_counts(samples)
    rows = []
    for (cond, tier), sub in (counts.groupby(["condition", "tier"]) if not counts.empty else []):
        row = {"condition": cond, "tier": tier, "n": int(sub["n"].iloc[0]), "errored": int(sub["errored"].iloc[0])}
        for _, r in sub.iterrows():
            score = criterion_score(df[(df["condition"] == cond) & (df["tier"] == tier)], r["criterion"])
            text = f"{r['pass']}/{r['scored']}"
            if score.mean is not None and score.low is not None:
                text += f" {score.mean:.2f} [{score.low:.2f}, {score.high:.2f}]"
            extra = ([f"{r['unscored']} unscored"] * bool(r["unscored"])
                     + [f"{r['not_applicable']} n/a"] * bool(r["not_applicable"]))
            row[r["criterion"]] = text + (f" ({', '.join(extra)})" if extra else "")
        rows.append(row)
    return pd.DataFrame(rows)


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


def summary_frame(samples: list[SampleResult]) -> pd.DataFrame:
    """Machine-readable summary (the seed benchmark's summary.tsv), one row per condition × criterion × tier.

    Columns: counts, the score and its interval, n cases and K, errored/unscored, and the arm's token
    and cost totals (cost_usd is empty when any sample's price was unknown; cost_known_samples says how many).
    """
    df = samples_frame(samples)
    counts = criterion_counts(samples)
    rows = []
    for _, r in counts.iterrows():
        sub = df[(df["condition"] == r["condition"]) & (df["tier"] == r["tier"])]
        score = criterion_score(sub, r["criterion"])
        costs = sub["cost_usd"]
        known = costs.notna()
        rows.append({"condition": r["condition"], "criterion": r["criterion"], "tier": r["tier"],
                     "n_samples": int(r["n"]),
                     "n_cases": int(sub["case"].nunique()), "k": round(len(sub) / max(1, sub["case"].nunique()), 3),
                     "pass": int(r["pass"]), "scored": int(r["scored"]), "unscored": int(r["unscored"]),
                     "not_applicable": int(r["not_applicable"]), "errored": int(r["errored"]),
                     "score": _round(score.mean), "ci_low": _round(score.low), "ci_high": _round(score.high),
                     "scored_cases": score.n_cases, "method": score.method,
                     "input_tokens": int(sub["input_tokens"].sum()), "output_tokens": int(sub["output_tokens"].sum()),
                     "cost_usd": float(costs.sum()) if known.all() and len(sub) else None,
                     "cost_known_samples": int(known.sum())})
    return pd.DataFrame(rows)


def to_markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured markdown table (no tabulate dependency); None shows as empty."""
    def fmt(v) -> str:
        if v is None or (isinstance(v, float) and pd.isna(v)):
            return ""
        if isinstance(v, float):
            return f"{v:.3g}"
        return str(v).replace("|", "\\|").replace("\n", " ")

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body]) + "\n"

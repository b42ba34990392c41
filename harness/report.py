"""Results tables from a run folder (pandas). Unscored cells are counted and shown, never dropped."""

from __future__ import annotations

import pandas as pd

from harness.models import CRITERIA_DETERMINISTIC, CRITERIA_LLM, SampleResult
from harness.stats import Score, case_score

CRITERIA = CRITERIA_LLM + CRITERIA_DETERMINISTIC
CELL = {"pass": "pass", "fail": "FAIL", "not_applicable": "n/a"}


def cell(verdict) -> str:
    if verdict is None:
        return "-"
    if verdict.status == "unscored":
        return "not judged" if verdict.reason == "not_judged" else f"unscored ({verdict.reason})"
    return CELL[verdict.status]


def samples_frame(samples: list[SampleResult]) -> pd.DataFrame:
    """One row per sample, one column per criterion (verdict status), plus status and timing."""
    rows = []
    for s in sorted(samples, key=lambda s: (s.case_id, s.condition, s.epoch)):
        row = {"case": s.case_id, "condition": s.condition, "epoch": s.epoch, "status": s.status,
               "duration_s": s.duration_s}
        for c in CRITERIA:
            v = s.verdicts.get(c)
            row[c] = v.status if v else None
        rows.append(row)
    return pd.DataFrame(rows)


def display_table(samples: list[SampleResult]) -> pd.DataFrame:
    """The per-sample table people read: human cell labels."""
    rows = []
    for s in sorted(samples, key=lambda s: (s.case_id, s.condition, s.epoch)):
        row = {"case": s.case_id, "condition": s.condition, "epoch": s.epoch, "status": s.status}
        row.update({c: cell(s.verdicts.get(c)) for c in CRITERIA})
        row["time_s"] = f"{s.duration_s:.1f}"
        rows.append(row)
    return pd.DataFrame(rows)


def criterion_counts(samples: list[SampleResult]) -> pd.DataFrame:
    """Per condition and criterion: passes, scored (pass+fail), n/a and unscored counts."""
    df = samples_frame(samples)
    rows = []
    for cond, sub in (df.groupby("condition") if not df.empty else []):
        for c in CRITERIA:
            col = sub[c]
            rows.append({"condition": cond, "criterion": c, "pass": int((col == "pass").sum()),
                         "scored": int(col.isin(["pass", "fail"]).sum()),
                         "not_applicable": int((col == "not_applicable").sum()),
                         "unscored": int((col == "unscored").sum()), "n": len(col),
                         "errored": int(sub["status"].isin(["agent_error", "infra_error"]).sum())})
    return pd.DataFrame(rows)


def criterion_score(sub: pd.DataFrame, criterion: str) -> Score:
    """Mean over cases of the per-case pass rate, over scored (pass/fail) samples only."""
    scored = sub[sub[criterion].isin(["pass", "fail"])]
    per_case = {case: list(g[criterion] == "pass") for case, g in scored.groupby("case")}
    return case_score(per_case)


def summary_table(samples: list[SampleResult]) -> pd.DataFrame:
    """One row per condition: per criterion 'pass/scored, score [95% CI]', unscored and n/a beside."""
    df = samples_frame(samples)
    counts = criterion_counts(samples)
    rows = []
    for cond, sub in (counts.groupby("condition") if not counts.empty else []):
        row = {"condition": cond, "n": int(sub["n"].iloc[0]), "errored": int(sub["errored"].iloc[0])}
        for _, r in sub.iterrows():
            score = criterion_score(df[df["condition"] == cond], r["criterion"])
            text = f"{r['pass']}/{r['scored']}"
            if score.mean is not None and score.low is not None:
                text += f" {score.mean:.2f} [{score.low:.2f}, {score.high:.2f}]"
            extra = [f"{r['unscored']} unscored"] * bool(r["unscored"]) + [f"{r['not_applicable']} n/a"] * bool(r["not_applicable"])
            row[r["criterion"]] = text + (f" ({', '.join(extra)})" if extra else "")
        rows.append(row)
    return pd.DataFrame(rows)

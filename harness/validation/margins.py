"""``validate --margins``: how close each numeric check of a verifier comes to its bound.

A bound a verdict hangs on should sit well between what the gold patch gives and what the broken
repo gives; one that gold, broken or a corpus fix comes within a few percent of will flip on
another seed or another CPU kernel. For each check with a machine-readable bound
(``verifylib.Checks.check(..., limit=, sense=)``), the margin of a value is its distance from the
limit, positive on the passing side, as a fraction of the gap between the gold and broken values
of that check. Values within ``FLAG_FRACTION`` of the gap (on either side) are flagged. A flag is
either fixed in the verifier or justified in the key (``margin_notes``: the spread measured across
seeds and kernels, and what keeps the verdict from flipping); the table says which.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from pydantic import BaseModel, ConfigDict

FLAG_FRACTION = 0.10
GOLD = "verifier_passes_on_gold"
BROKEN = "verifier_fails_on_broken"


class MarginRow(BaseModel):
    """One numeric check of one case: the values nearest its bound, and how near they are."""

    model_config = ConfigDict(extra="forbid")

    check: str
    bound: str
    gold: float | None
    broken: float | None
    worst_corpus: float | None
    worst_corpus_fix: str = ""
    margin: float | None  # the smallest |margin| over gold, broken and corpus values; None without a gap
    flagged: bool
    justified: str = ""  # the key's margin note for a flagged check


class CaseMargins(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    rows: list[MarginRow]
    not_numeric: int  # check rows (gold, broken, corpus) with no machine-readable bound


def margin(value: float, limit: float, sense: str, gap: float) -> float | None:
    """Distance of ``value`` from ``limit`` on the passing side (negative: failing side), over ``gap``; None
    without a finite gap (a bug that drives the quantity to inf or NaN gives no scale to measure against)."""
    if not gap or not math.isfinite(gap) or not math.isfinite(value):
        return None
    return ((limit - value) if sense == "<" else (value - limit)) / gap


def _nearest(rows: list[dict]) -> dict | None:
    """The row whose value is closest to its limit (in absolute terms)."""
    return min(rows, key=lambda r: abs(r["value"] - r["limit"]), default=None)


def case_margins(case_id: str, checks, notes: dict[str, str] | None = None) -> CaseMargins:
    """Margins from one case's validation checks (their ``measured["rows"]``, see ``harness.validation.validate``);
    ``notes``: the key's margin notes by check name."""
    notes = notes or {}
    by_variant: dict[str, list[dict]] = {}
    not_numeric = 0
    for chk in checks:
        if chk.name in (GOLD, BROKEN) or chk.name.startswith("corpus_"):
            by_variant[chk.name] = list(chk.measured.get("rows") or [])
            not_numeric += int(chk.measured.get("not_numeric") or 0)
    names = sorted({r["name"] for rows in by_variant.values() for r in rows})
    out = []
    for name in names:
        def rows_of(variant: str) -> list[dict]:
            return [r for r in by_variant.get(variant, []) if r["name"] == name]

        gold, broken = rows_of(GOLD), rows_of(BROKEN)
        corpus = [(v, r) for v in by_variant if v.startswith("corpus_") for r in rows_of(v)]
        any_row = (gold or broken or [r for _, r in corpus])[0]
        gap = (abs(statistics.median(r["value"] for r in gold) - statistics.median(r["value"] for r in broken))
               if gold and broken else 0.0)
        margins = [margin(r["value"], r["limit"], r["sense"], gap) for r in gold + broken + [r for _, r in corpus]]
        known = [abs(m) for m in margins if m is not None]
        worst_fix, worst = min(corpus, key=lambda vr: abs(vr[1]["value"] - vr[1]["limit"]), default=("", None))
        smallest = min(known, default=None)
        out.append(MarginRow(check=name, bound=f"{any_row['sense']} {any_row['limit']:g}",
                             gold=(_nearest(gold) or {}).get("value"), broken=(_nearest(broken) or {}).get("value"),
                             worst_corpus=worst["value"] if worst else None, worst_corpus_fix=worst_fix,
                             margin=smallest, flagged=smallest is not None and smallest < FLAG_FRACTION,
                             justified=notes.get(name, "")))
    return CaseMargins(case_id=case_id, rows=out, not_numeric=not_numeric)


def table(margins: CaseMargins) -> list[dict[str, Any]]:
    """Rows for printing: check, gold value, broken value, worst corpus value, margin fraction, flag."""
    def num(x):
        return "" if x is None else f"{x:.4g}"
    return [{"check": r.check, "bound": r.bound, "gold": num(r.gold), "broken": num(r.broken),
             "worst corpus": f"{num(r.worst_corpus)} ({r.worst_corpus_fix.split(':', 1)[-1]})" if r.worst_corpus_fix
             else "", "margin": "n/a (no finite gold-broken gap)" if r.margin is None else f"{r.margin:.3f}",
             "flag": ("WITHIN 10%, justified in the key" if r.justified else "WITHIN 10%") if r.flagged else ""}
            for r in margins.rows]

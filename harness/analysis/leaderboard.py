"""Merge run folders into a leaderboard, with item analysis per case (docs/statistics.md).

One row per agent × condition; runs of the same agent and condition over the same cases are pooled
(their samples add repeats). A run a person drove through ``session`` (its manifest says ``human``) is a
row of its own, marked human: a human baseline. Runs over different case sets (case or answer hashes) are never mixed:
each case set gets its own table, named by a short fingerprint of its hashes. Tiers are never mixed
either: a run over both tiers is split into its standard part and its hard part, each joining the case
set of its own cases (so the standard half of an ``--tier all`` run pools with a standard-only run).

Item analysis asks which cases carry information. For each case, over the rows of its table:
difficulty = mean of the rows' pass rates on the case; discrimination = the Pearson correlation,
across rows, between the row's pass rate on the case and its mean pass rate on the *other* cases
(the point-biserial correlation when K = 1; the rest score leaves the case out so it does not
correlate with itself). A case every row passes (or fails) cannot tell rows apart.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.analysis.report import ERRORED, REPORTED, status_of
from harness.analysis.stats import case_score
from harness.core.cases import TIERS, tier_of
from harness.core.errors import ConfigError, InputError
from harness.core.results import read_manifest, read_samples
from harness.models import RunManifest, SampleResult

CEILING = 0.95
FLOOR = 0.05


class CriterionScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    score: float | None
    low: float | None
    high: float | None
    scored: int
    unscored: int


class LeaderRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_set: str
    tier: str = "standard"
    agent: str
    human: bool = False  # driven by a person through `session` (a human baseline), never pooled with a model's runs
    condition: str
    runs: list[str]
    date: str
    harness_version: str
    n_cases: int
    k: float
    samples: int
    errored: int
    scores: dict[str, CriterionScore]
    case_rates: dict[str, float] = {}


class ItemStats(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_set: str
    case: str
    criterion: str
    rows: int
    difficulty: float | None
    discrimination: float | None
    flags: list[str]


class CaseSet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fingerprint: str
    tier: str = "standard"
    cases: list[str]
    case_sha256: dict[str, str]
    answer_sha256: dict[str, str]
    rows: list[LeaderRow]
    items: list[ItemStats]


class Leaderboard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    item_criterion: str
    case_sets: list[CaseSet]


def case_set_fingerprint(m: RunManifest) -> str:
    """12 hex digits over every case's (case hash, answer hash): equal only for the same cases and keys."""
    body = json.dumps({c: [m.case_sha256.get(c), m.answer_sha256.get(c)] for c in sorted(m.case_ids)},
                      sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def split_by_tier(m: RunManifest) -> list[RunManifest]:
    """The run's manifest restricted to each tier it holds (itself when it holds one: old runs are unchanged)."""
    tiers = [t for t in TIERS if any(tier_of(c) == t for c in m.case_ids)]
    if len(tiers) <= 1:
        return [m]
    return [m.model_copy(update={"case_ids": [c for c in m.case_ids if tier_of(c) == t]}) for t in tiers]


def _row(fingerprint: str, condition: str, parts: list[tuple[RunManifest, list[SampleResult]]], cases: list[str],
         item_criterion: str) -> LeaderRow:
    manifests = [m for m, _ in parts]
    samples = [s for _, ss in parts for s in ss]
    scores = {}
    rates: dict[str, float] = {}
    for c in REPORTED:
        per_case: dict[str, list[bool]] = {}
        unscored = 0
        for s in samples:
            st = status_of(s, c)
            if st in ("pass", "fail"):
                per_case.setdefault(s.case_id, []).append(st == "pass")
            elif st != "not_applicable":
                unscored += 1
        sc = case_score(per_case)
        scores[c] = CriterionScore(score=sc.mean, low=sc.low, high=sc.high,
                                   scored=sum(len(v) for v in per_case.values()), unscored=unscored)
        if c == item_criterion:
            rates = {case: sum(v) / len(v) for case, v in per_case.items()}
    return LeaderRow(case_set=fingerprint, tier=tier_of(cases[0]) if cases else "standard", agent=manifests[0].agent,
                     human=bool(manifests[0].agent_settings.get("human")), condition=condition,
                     runs=sorted(m.run_id for m in manifests), date=max(m.created_at for m in manifests)[:10],
                     harness_version=", ".join(sorted({m.harness_version for m in manifests})),
                     n_cases=len({s.case_id for s in samples}), k=round(len(samples) / max(1, len(cases)), 3),
                     samples=len(samples), errored=sum(s.status in ERRORED for s in samples), scores=scores,
                     case_rates=rates)


def pearson(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def item_analysis(fingerprint: str, cases: list[str], rows: list[LeaderRow], criterion: str) -> list[ItemStats]:
    items = []
    for case in cases:
        xs, ys = [], []
        for r in rows:
            others = [v for c, v in r.case_rates.items() if c != case]
            if case in r.case_rates and others:
                xs.append(r.case_rates[case])
                ys.append(sum(others) / len(others))
        rated = [r.case_rates[case] for r in rows if case in r.case_rates]
        difficulty = sum(rated) / len(rated) if rated else None
        disc = pearson(xs, ys)
        flags = []
        if difficulty is not None and difficulty >= CEILING:
            flags.append("ceiling")
        if difficulty is not None and difficulty <= FLOOR:
            flags.append("floor")
        if disc is not None and disc < 0:
            flags.append("negative discrimination")
        if not rated:
            flags.append("never scored")
        items.append(ItemStats(case_set=fingerprint, case=case, criterion=criterion, rows=len(rated),
                               difficulty=difficulty, discrimination=disc, flags=flags))
    return items


def build_leaderboard(run_dirs: list[Path], item_criterion: str = "root_cause") -> Leaderboard:
    if item_criterion not in REPORTED:
        raise ConfigError(f"--item-criterion: unknown criterion {item_criterion!r}; choose from {', '.join(REPORTED)}")
    groups: dict[str, dict] = {}
    seen: set[str] = set()
    for run_dir in run_dirs:
        m = read_manifest(run_dir)
        if m.run_id in seen:
            raise InputError(run_dir, f"run {m.run_id} is given twice")
        seen.add(m.run_id)
        samples = read_samples(run_dir)
        for part in split_by_tier(m):
            fp = case_set_fingerprint(part)
            group = groups.setdefault(fp, {"manifest": part, "arms": {}})
            for cond in part.conditions:
                arm = (part.agent, bool(part.agent_settings.get("human")), cond)
                group["arms"].setdefault(arm, []).append(
                    (part, [s for s in samples if s.condition == cond and s.case_id in part.case_ids]))
    case_sets = []
    for fp, group in groups.items():
        m = group["manifest"]
        cases = sorted(m.case_ids)
        rows = [_row(fp, cond, parts, cases, item_criterion) for (_, _, cond), parts in sorted(group["arms"].items())]
        case_sets.append(CaseSet(fingerprint=fp, tier=tier_of(cases[0]) if cases else "standard", cases=cases,
                                 case_sha256={c: m.case_sha256.get(c, "") for c in cases},
                                 answer_sha256={c: m.answer_sha256.get(c, "") for c in cases}, rows=rows,
                                 items=item_analysis(fp, cases, rows, item_criterion)))
    return Leaderboard(item_criterion=item_criterion, case_sets=case_sets)


def _fmt(v: float | None, spec: str = "{:.2f}") -> str:
    return "" if v is None or v != v else spec.format(v)  # v != v: NaN, pandas' None in a float column


def rows_frame(board: Leaderboard, wide: bool = False):
    """Flat rows: csv gets numbers (score, low, high per criterion); ``wide`` gets 'score [low, high]' text."""
    import pandas as pd

    records = []
    for cs in board.case_sets:
        for r in cs.rows:
            # a human baseline: marked in the agent's name in tables, in its own column in the csv
            rec = {"case_set": cs.fingerprint, "tier": cs.tier,
                   "agent": f"{r.agent} (human)" if wide and r.human else r.agent}
            if not wide:
                rec["human"] = r.human
            rec.update({"condition": r.condition, "n_cases": r.n_cases, "k": r.k, "samples": r.samples,
                        "errored": r.errored})
            for c, s in r.scores.items():
                if wide:
                    rec[c] = "" if s.score is None else f"{s.score:.2f} [{s.low:.2f}, {s.high:.2f}]" + \
                        (f" ({s.unscored} unscored)" if s.unscored else "")
                else:
                    rec.update({f"{c}": s.score, f"{c}_low": s.low, f"{c}_high": s.high, f"{c}_scored": s.scored,
                                f"{c}_unscored": s.unscored})
            rec.update({"date": r.date, "harness_version": r.harness_version, "runs": " ".join(r.runs)})
            records.append(rec)
    return pd.DataFrame(records)


def items_frame(board: Leaderboard):
    import pandas as pd

    return pd.DataFrame([{"case_set": i.case_set, "case": i.case, "criterion": i.criterion, "rows": i.rows,
                          "difficulty": i.difficulty, "discrimination": i.discrimination, "flags": "; ".join(i.flags)}
                         for cs in board.case_sets for i in cs.items])


def leaderboard_markdown(board: Leaderboard) -> str:
    from harness.analysis.report import to_markdown

    parts = ["# Leaderboard\n",
             "Score = mean over cases of the per-case pass rate, with its 95% interval (docs/statistics.md). "
             "Unscored samples never count; runs over different cases or answer keys are in separate tables.\n"]
    rows = rows_frame(board, wide=True)
    items = items_frame(board)
    for cs in board.case_sets:
        parts.append(f"## Case set {cs.fingerprint}, {cs.tier} tier ({len(cs.cases)} cases: {', '.join(cs.cases)})\n")
        table = rows[rows["case_set"] == cs.fingerprint].drop(columns=["case_set"])
        parts.append(to_markdown(table))
        parts.append(f"\n### Item analysis ({board.item_criterion})\n")
        parts.append("difficulty = mean pass rate over rows; discrimination = correlation across rows of the case "
                     "with the row's score on the other cases (empty: fewer than 3 rows or no variation); "
                     f"ceiling ≥ {CEILING}, floor ≤ {FLOOR}.\n")
        sub = items[items["case_set"] == cs.fingerprint].drop(columns=["case_set", "criterion"])
        sub = sub.assign(difficulty=sub["difficulty"].map(_fmt), discrimination=sub["discrimination"].map(_fmt))
        parts.append(to_markdown(sub))
        hashes = "; ".join(f"{c} case {cs.case_sha256[c][:12]} answer {cs.answer_sha256[c][:12]}" for c in cs.cases)
        parts.append(f"\nHashes: {hashes}\n")
    return "\n".join(parts)


def write_leaderboard(board: Leaderboard, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "leaderboard.md", out_dir / "leaderboard.csv", out_dir / "leaderboard_items.csv"]
    paths[0].write_text(leaderboard_markdown(board), encoding="utf-8")
    rows_frame(board).to_csv(paths[1], index=False)
    items_frame(board).to_csv(paths[2], index=False)
    return paths

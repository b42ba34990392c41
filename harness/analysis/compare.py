"""Two arms, paired over cases: ``compare`` tables and the ``gate`` decision (docs/statistics.md).

An arm is one condition of one run folder. ``compare RUN`` pairs the run's two conditions;
``compare RUN_A RUN_B`` pairs two runs, which must hold the same cases with the same case and
answer hashes (otherwise the difference could be the cases changing, not the agent).

Cases pair only with the same case id, so a standard case never pairs with a hard one; runs over both
tiers get one set of rows per tier (each with its own Holm family), and ``gate`` decides on one tier.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.analysis.report import ERRORED, REPORTED, per_case, samples_frame, status_of
from harness.analysis.stats import PairedDiff, holm, mde_at, paired_diff
from harness.core.cases import tier_of, tiers_of
from harness.core.errors import ConfigError, InputError
from harness.core.results import read_manifest, read_samples
from harness.models import RunManifest, SampleResult

PRIMARY = "root_cause"


@dataclass
class Arm:
    run_dir: Path
    manifest: RunManifest
    condition: str
    samples: list[SampleResult]

    @property
    def label(self) -> str:
        return f"{self.manifest.agent} / {self.condition} ({self.manifest.run_id})"

    @property
    def planned(self) -> int:
        """Samples the run meant to make in this arm (a crashed-out sample still counts against it)."""
        return max(len(self.manifest.case_ids) * self.manifest.epochs, len(self.samples))


class CriterionComparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    criterion: str
    tier: str = "standard"
    diff: PairedDiff
    p_holm: float | None = None
    unscored_a: int
    unscored_b: int


class Comparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    baseline: str
    candidate: str
    cases: list[str]
    excluded_cases: list[str]
    rows: list[CriterionComparison]

    @property
    def tiers(self) -> list[str]:
        return list(dict.fromkeys(r.tier for r in self.rows))

    def row(self, criterion: str, tier: str | None = None) -> CriterionComparison:
        """The row of ``criterion`` in ``tier`` (None: the comparison's only tier)."""
        if tier is None:
            if len(self.tiers) > 1:
                raise ConfigError(f"the runs hold cases of tiers {', '.join(self.tiers)}: name one with --tier")
            tier = self.tiers[0] if self.tiers else "standard"
        for r in self.rows:
            if r.criterion == criterion and r.tier == tier:
                return r
        if tier not in self.tiers:
            raise ConfigError(f"no case of tier {tier!r} in the comparison (tiers: {', '.join(self.tiers) or 'none'})")
        raise ConfigError(f"unknown criterion {criterion!r}; choose from "
                          f"{', '.join(dict.fromkeys(r.criterion for r in self.rows))}")


def _arm(run_dir: Path, condition: str | None, manifest: RunManifest | None = None) -> Arm:
    manifest = manifest or read_manifest(run_dir)
    if condition is None:
        if len(manifest.conditions) != 1:
            raise InputError(run_dir, f"the run has conditions {', '.join(manifest.conditions)}: "
                                      f"name one with --condition")
        condition = manifest.conditions[0]
    if condition not in manifest.conditions:
        raise InputError(run_dir, f"no condition {condition!r} (the run has {', '.join(manifest.conditions)})")
    samples = [s for s in read_samples(run_dir) if s.condition == condition]
    return Arm(run_dir, manifest, condition, samples)


def load_arms(runs: list[Path], condition: str | None = None, baseline_condition: str | None = None,
              candidate_condition: str | None = None) -> tuple[Arm, Arm]:
    """(baseline, candidate) from one run with two conditions or from two runs."""
    if len(runs) == 1:
        manifest = read_manifest(runs[0])
        conds = manifest.conditions
        if baseline_condition is None and candidate_condition is None:
            if len(conds) != 2:
                raise InputError(runs[0], f"compare needs two conditions; the run has {', '.join(conds)} "
                                          f"(name them with --baseline-condition/--candidate-condition)")
            baseline_condition, candidate_condition = conds
        return (_arm(runs[0], baseline_condition or conds[0], manifest),
                _arm(runs[0], candidate_condition or conds[-1], manifest))
    if len(runs) == 2:
        return (_arm(runs[0], baseline_condition or condition), _arm(runs[1], candidate_condition or condition))
    raise InputError(runs[2], "compare takes one run (its two conditions) or two runs")


def hash_mismatches(a: RunManifest, b: RunManifest) -> list[str]:
    """Human-readable reasons the two runs are not over the same cases (empty: they are)."""
    problems = []
    only_a = sorted(set(a.case_ids) - set(b.case_ids))
    only_b = sorted(set(b.case_ids) - set(a.case_ids))
    if only_a:
        problems.append(f"only in {a.run_id}: {', '.join(only_a)}")
    if only_b:
        problems.append(f"only in {b.run_id}: {', '.join(only_b)}")
    for kind, ha, hb in (("case", a.case_sha256, b.case_sha256), ("answer", a.answer_sha256, b.answer_sha256)):
        differ = sorted(c for c in set(a.case_ids) & set(b.case_ids) if ha.get(c) != hb.get(c))
        if differ:
            problems.append(f"{kind} hashes differ: {', '.join(differ)}")
    return problems


def comparable_cases(a: Arm, b: Arm, allow_different: bool) -> tuple[list[str], list[str]]:
    """(cases to pair on, cases left out); raises InputError naming the cases unless allowed."""
    if a.manifest.run_id == b.manifest.run_id:
        return sorted(a.manifest.case_ids), []
    problems = hash_mismatches(a.manifest, b.manifest)
    if problems and not allow_different:
        raise InputError(b.run_dir, f"not the same cases as {a.run_dir}: {'; '.join(problems)} "
                                    f"(--allow-different-cases pairs only the cases that match)")
    same = sorted(c for c in set(a.manifest.case_ids) & set(b.manifest.case_ids)
                  if a.manifest.case_sha256.get(c) == b.manifest.case_sha256.get(c)
                  and a.manifest.answer_sha256.get(c) == b.manifest.answer_sha256.get(c))
    left_out = sorted((set(a.manifest.case_ids) | set(b.manifest.case_ids)) - set(same))
    return same, left_out


def unscored_count(arm: Arm, criterion: str, cases: list[str] | None = None) -> int:
    """Samples with no pass/fail/n-a on ``criterion`` (errored, unscored, or planned but missing)."""
    samples = [s for s in arm.samples if cases is None or s.case_id in cases]
    bad = sum(s.status in ERRORED or status_of(s, criterion) not in ("pass", "fail", "not_applicable")
              for s in samples)
    planned = arm.planned if cases is None else len(cases) * arm.manifest.epochs
    return bad + max(0, planned - len(samples))


def compare(a: Arm, b: Arm, allow_different_cases: bool = False, primary: str = PRIMARY) -> Comparison:
    cases, left_out = comparable_cases(a, b, allow_different_cases)
    fa, fb = samples_frame(a.samples), samples_frame(b.samples)
    rows = []
    for tier in tiers_of(cases) or ["standard"]:
        in_tier = [c for c in cases if tier_of(c) == tier]
        ta, tb = fa[fa["case"].isin(in_tier)], fb[fb["case"].isin(in_tier)]
        tier_rows = [CriterionComparison(criterion=c, tier=tier, diff=paired_diff(per_case(ta, c), per_case(tb, c)),
                                         unscored_a=unscored_count(a, c, in_tier),
                                         unscored_b=unscored_count(b, c, in_tier))
                     for c in REPORTED]
        adjusted = holm({r.criterion: r.diff.p_value for r in tier_rows if r.criterion != primary})
        for r in tier_rows:
            r.p_holm = r.diff.p_value if r.criterion == primary else adjusted.get(r.criterion)
        rows += tier_rows
    return Comparison(baseline=a.label, candidate=b.label, cases=cases, excluded_cases=left_out, rows=rows)


def fmt_num(v: float | None, fmt: str = "{:+.2f}") -> str:
    if v is None:
        return "-"
    return fmt.format(0.0 if abs(v) < 1e-9 else v)  # no "-0.00" from float round-off


def comparison_table(comp: Comparison, mde_ks: list[float] = ()):
    """One row per criterion: the arms' case-mean rates, B − A [95% CI], sign-flip p, MDE (and MDE at other K)."""
    import pandas as pd

    rows = []
    for r in comp.rows:
        d = r.diff
        row = {"criterion": r.criterion, "tier": r.tier, "cases": d.n_cases, "K": f"{d.k:.3g}",
               "baseline": fmt_num(d.mean_a, "{:.2f}"), "candidate": fmt_num(d.mean_b, "{:.2f}"),
               "diff [95% CI]": "-" if d.diff is None else
               fmt_num(d.diff) + ("" if d.low is None else f" [{fmt_num(d.low)}, {fmt_num(d.high)}]"),
               "p (sign-flip)": fmt_num(d.p_value, "{:.3f}"), "p (Holm)": fmt_num(r.p_holm, "{:.3f}"),
               "MDE (80%)": fmt_num(d.mde, "{:.2f}"), "unscored A/B": f"{r.unscored_a}/{r.unscored_b}"}
        for k in mde_ks:
            row[f"MDE K={k:g}"] = fmt_num(mde_at(d, k), "{:.2f}")
        rows.append(row)
    return pd.DataFrame(rows)


# --- gate -----------------------------------------------------------------------------------


class GateResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    passed: bool
    reason: str
    criterion: str
    tier: str = "standard"
    margin: float
    non_inferiority: bool
    diff: PairedDiff
    unscored_fraction: dict[str, float]


def gate(comp: Comparison, a: Arm, b: Arm, criterion: str = PRIMARY, margin: float = 0.10,
         max_unscored: float = 0.10, non_inferiority: bool = False, tier: str | None = None) -> GateResult:
    """The CI decision on one tier (``tier`` None: the comparison's only one); see ``gate`` in
    docs/statistics.md for why each rule is what it is."""
    row = comp.row(criterion, tier)
    d = row.diff
    in_tier = [c for c in comp.cases if tier_of(c) == row.tier]
    fractions = {}
    for name, arm in (("baseline", a), ("candidate", b)):
        planned = len(in_tier) * arm.manifest.epochs
        fractions[name] = unscored_count(arm, criterion, in_tier) / planned if planned else 1.0
    common = dict(criterion=criterion, tier=row.tier, margin=margin, non_inferiority=non_inferiority, diff=d,
                  unscored_fraction=fractions)
    too_many = [f"{name} {frac:.0%}" for name, frac in fractions.items() if frac > max_unscored]
    if too_many:
        return GateResult(passed=False, reason=f"too many errored/unscored samples on {criterion}: "
                          f"{', '.join(too_many)} > {max_unscored:.0%}", **common)
    if d.diff is None or d.low is None:
        return GateResult(passed=False, reason=f"no interval for {criterion}: fewer than 2 cases scored in both "
                                               f"arms", **common)
    if non_inferiority:
        if d.low > -margin:
            return GateResult(passed=True, reason=f"non-inferior: lower 95% bound {fmt_num(d.low)} > −{margin:.2f}",
                              **common)
        return GateResult(passed=False, reason=f"non-inferiority not shown: lower 95% bound {fmt_num(d.low)} ≤ "
                                               f"−{margin:.2f}", **common)
    if d.high < -margin:
        return GateResult(passed=False, reason=f"regression: upper 95% bound {fmt_num(d.high)} < "
                                               f"−{margin:.2f}", **common)
    return GateResult(passed=True, reason=f"no regression beyond the margin: upper 95% bound {fmt_num(d.high)} ≥ "
                                          f"−{margin:.2f}", **common)

"""Scores and comparisons with honest error bars (docs/statistics.md): the case is the unit of analysis.

**A rate over cases.** A condition's score on a criterion is the mean over cases of the per-case
pass rate over scored samples. Its 95% interval is one method whatever K (repeats per case) is:
Wilson's interval at an *effective* sample size, the pooled count of scored samples divided by the
design effect ``deff = K̄ · var(case means) / (p(1 − p))`` (variance over cases with denominator n,
floored at 1, and at most K̄ because case means lie in [0, 1]). Why this and not a t interval over
case means: the t interval has zero width whenever every case has the same mean (all pass at
K = 2 printed ``[1.00, 1.00]``), and switching methods when one extra sample arrives made the
interval jump. The design-effect Wilson interval reduces exactly to Wilson over cases at K = 1,
to Wilson over all samples when repeats vary as much within cases as across them, to Wilson over
n cases when cases are all-or-nothing, and never has zero width.

**A paired difference.** Between two arms over the same cases: d_i = (case i's rate in B) − (in A),
a t interval over the d_i with df = n − 1 (exact scipy quantiles; with repeats its variance is never
taken below the within-case noise (σ²_A + σ²_B) / K), the exact sign-flip permutation
p-value (all 2^n sign patterns up to n = 16, a seeded Monte Carlo beyond), and the minimum
detectable effect (MDE) at 80% power from the variance components
``Var(d_i) = ω² + (σ²_A + σ²_B) / K``.

scipy is imported inside the functions that need it so the CLI starts fast.
"""

from __future__ import annotations

import itertools
import math
import random

from pydantic import BaseModel, ConfigDict

EXACT_SIGN_FLIP_MAX_N = 16
MONTE_CARLO_DRAWS = 20_000
POWER = 0.80
ALPHA = 0.05


def t_quantile(q: float, df: int) -> float:
    """The q quantile of Student's t with ``df`` degrees of freedom (exact, from scipy)."""
    from scipy.stats import t

    return float(t.ppf(q, df))


def t975(df: int) -> float:
    return t_quantile(1 - ALPHA / 2, df)


class Score(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mean: float | None
    low: float | None
    high: float | None
    n_cases: int
    n_samples: int = 0
    design_effect: float | None = None
    method: str


def wilson(k: float, n: float, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials (k and n may be fractional: effective counts)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if k <= 0 else low, 1.0 if k >= n else high)  # exact ends, not 0.9999999


def case_means(per_case: dict[str, list[bool]]) -> dict[str, float]:
    return {c: sum(v) / len(v) for c, v in per_case.items() if v}


def case_score(per_case: dict[str, list[bool]]) -> Score:
    """``per_case``: case id -> pass/fail of each scored sample (unscored ones already left out)."""
    cases = {c: v for c, v in per_case.items() if v}
    n = len(cases)
    if n == 0:
        return Score(mean=None, low=None, high=None, n_cases=0, method="none")
    means = list(case_means(cases).values())
    pooled = sum(len(v) for v in cases.values())
    mean = sum(means) / n
    k_bar = pooled / n
    between = sum((m - mean) ** 2 for m in means) / n
    binomial = mean * (1 - mean)
    deff = 1.0 if binomial == 0 else min(k_bar, max(1.0, k_bar * between / binomial))
    n_eff = pooled / deff
    low, high = wilson(mean * n_eff, n_eff)
    return Score(mean=mean, low=low, high=high, n_cases=n, n_samples=pooled, design_effect=deff,
                 method="wilson-deff")


# --- paired comparison -----------------------------------------------------------------------


class PairedDiff(BaseModel):
    """B − A over the cases both arms scored; ``mde`` is at this n and K (None: no variation seen)."""

    model_config = ConfigDict(extra="forbid")

    n_cases: int
    k: float
    mean_a: float | None
    mean_b: float | None
    diff: float | None
    low: float | None
    high: float | None
    p_value: float | None
    p_method: str
    mde: float | None
    var_within_a: float | None = None
    var_within_b: float | None = None
    var_between: float | None = None


def sign_flip_p(diffs: list[float], draws: int = MONTE_CARLO_DRAWS, seed: int = 0) -> tuple[float, str]:
    """Two-sided sign-flip permutation p-value of mean(d) = 0: exact up to 16 cases, else Monte Carlo.

    Under the null each d_i is as likely to be +|d_i| as −|d_i|; p is the share of sign patterns whose
    |sum| is at least the observed |sum| (a small tolerance keeps float ties as ties).
    """
    n = len(diffs)
    if n == 0:
        return (1.0, "none")
    observed = abs(sum(diffs)) - 1e-9
    if n <= EXACT_SIGN_FLIP_MAX_N:
        hits = sum(abs(sum(s * d for s, d in zip(signs, diffs))) >= observed
                   for signs in itertools.product((1, -1), repeat=n))
        return (hits / 2 ** n, "exact")
    rng = random.Random(seed)
    hits = sum(abs(sum(d if rng.random() < 0.5 else -d for d in diffs)) >= observed for _ in range(draws))
    return ((hits + 1) / (draws + 1), f"monte-carlo ({draws} draws)")


def within_variance(per_case: dict[str, list[bool]]) -> float:
    """σ² = mean over cases of the within-case variance of one outcome.

    With repeats, each case's unbiased sample variance (denominator K − 1). With one sample per case
    it is not identifiable, so the bound p̃(1 − p̃) (all variation within cases) is used, with p̃ the
    Agresti–Coull rate (x + 2) / (N + 4), which keeps the bound above zero when every sample agrees.
    """
    cases = [v for v in per_case.values() if v]
    if not cases:
        return 0.0
    if all(len(v) >= 2 for v in cases):
        return sum(sum(v) / len(v) * (1 - sum(v) / len(v)) * len(v) / (len(v) - 1) for v in cases) / len(cases)
    x, total = sum(sum(v) for v in cases), sum(len(v) for v in cases)
    p = (x + 2) / (total + 4)
    return p * (1 - p)


def mde(n: int, var_between: float, var_within_sum: float, k: float) -> float | None:
    """Smallest true difference a two-sided 5% test over n cases detects with 80% power at K repeats."""
    if n < 2:
        return None
    var_d = var_between + var_within_sum / k
    if var_d <= 0:
        return None
    return (t975(n - 1) + t_quantile(POWER, n - 1)) * math.sqrt(var_d / n)


def paired_diff(a: dict[str, list[bool]], b: dict[str, list[bool]]) -> PairedDiff:
    """Compare arm B with arm A over the cases scored in both (dicts as for ``case_score``)."""
    common = sorted(set(case_means(a)) & set(case_means(b)))
    n = len(common)
    if n == 0:
        return PairedDiff(n_cases=0, k=0, mean_a=None, mean_b=None, diff=None, low=None, high=None,
                          p_value=None, p_method="none", mde=None)
    ma, mb = case_means(a), case_means(b)
    diffs = [mb[c] - ma[c] for c in common]
    mean = sum(diffs) / n
    k = sum(len(a[c]) + len(b[c]) for c in common) / (2 * n)
    p, p_method = sign_flip_p(diffs)
    s2_a = within_variance({c: a[c] for c in common})
    s2_b = within_variance({c: b[c] for c in common})
    if n < 2:
        return PairedDiff(n_cases=n, k=k, mean_a=ma[common[0]], mean_b=mb[common[0]], diff=mean, low=None,
                          high=None, p_value=p, p_method=p_method, mde=None, var_within_a=s2_a, var_within_b=s2_b)
    var_d = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    omega2 = max(0.0, var_d - (s2_a + s2_b) / k)
    # Var(d_i) = ω² + (σ²_A + σ²_B)/K is never below the within-case noise. With repeats σ² is estimated
    # without bias, so the interval uses that floor: a few cases that happen to agree (sd(d) = 0 at K = 2)
    # must not give a zero-width interval. At K = 1 σ² is only an upper bound, and the observed sd is used.
    with_repeats = all(len(a[c]) >= 2 and len(b[c]) >= 2 for c in common)
    var_ci = max(var_d, (s2_a + s2_b) / k) if with_repeats else var_d
    half = t975(n - 1) * math.sqrt(var_ci / n)
    # a difference of rates lies in [-1, 1]: the t interval is clipped there (never narrowed inside it)
    return PairedDiff(n_cases=n, k=k, mean_a=sum(ma[c] for c in common) / n, mean_b=sum(mb[c] for c in common) / n,
                      diff=mean, low=max(-1.0, mean - half), high=min(1.0, mean + half), p_value=p, p_method=p_method,
                      mde=mde(n, omega2, s2_a + s2_b, k), var_within_a=s2_a, var_within_b=s2_b,
                      var_between=omega2)


def mde_at(diff: PairedDiff, k: float) -> float | None:
    """The MDE this comparison's variance components predict at K = ``k`` repeats (same n)."""
    if diff.var_within_a is None or diff.var_between is None:
        return None
    return mde(diff.n_cases, diff.var_between, diff.var_within_a + diff.var_within_b, k)


def holm(p_values: dict[str, float | None]) -> dict[str, float | None]:
    """Holm–Bonferroni adjusted p-values (None stays None): for the secondary criteria of a comparison."""
    known = sorted(((p, name) for name, p in p_values.items() if p is not None))
    m = len(known)
    adjusted: dict[str, float | None] = {name: None for name in p_values}
    running = 0.0
    for i, (p, name) in enumerate(known):
        running = max(running, min(1.0, (m - i) * p))
        adjusted[name] = running
    return adjusted

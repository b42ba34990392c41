"""harness/analysis/stats.py against values worked out by hand here, and against scipy's own routines."""

import math

import pytest
from scipy import stats as sp

from harness.analysis.stats import case_score, holm, mde_at, paired_diff, sign_flip_p, t975, wilson

T, F = True, False


def test_wilson_known_values():
    low, high = wilson(10, 10)
    assert math.isclose(low, 0.7225, abs_tol=1e-3) and high == 1.0
    low, high = wilson(5, 10)
    assert math.isclose(low, 0.2366, abs_tol=1e-3) and math.isclose(high, 0.7634, abs_tol=1e-3)


def test_t_quantiles_are_exact_not_a_table():
    assert math.isclose(t975(9), 2.2621571628, rel_tol=1e-9)
    assert math.isclose(t975(40), 2.0210753903, rel_tol=1e-9)  # the old table said 1.96 past df 30


# --- a rate over cases ------------------------------------------------------------------------


def test_one_sample_per_case_is_plain_wilson_over_cases():
    s = case_score({f"c{i}": [i < 8] for i in range(10)})
    assert s.mean == 0.8 and s.n_cases == 10 and s.design_effect == 1.0
    assert (s.low, s.high) == pytest.approx(wilson(8, 10))


def test_all_pass_with_repeats_never_has_zero_width():
    s = case_score({f"c{i}": [T, T] for i in range(10)})
    assert s.mean == 1.0 and s.high == 1.0 and s.low < 0.9
    assert (s.low, s.high) == pytest.approx(wilson(20, 20))  # no between-case variance seen: deff 1


def test_all_or_nothing_cases_count_once_each():
    # every case passes both repeats or fails both: repeats add no information, deff = K = 2
    s = case_score({f"c{i}": [i < 6] * 2 for i in range(10)})
    assert s.design_effect == pytest.approx(2.0)
    assert (s.low, s.high) == pytest.approx(wilson(6, 10))


def test_design_effect_by_hand():
    # case means 1, 0.5, 0, 0.5 at K = 2: p = 0.5, var over cases (denominator n) = 0.125,
    # deff = 2 * 0.125 / 0.25 = 1.0 -> Wilson at 8 samples; one more split case changes it smoothly
    s = case_score({"a": [T, T], "b": [T, F], "c": [F, F], "d": [F, T]})
    assert s.design_effect == pytest.approx(1.0) and (s.low, s.high) == pytest.approx(wilson(4, 8))
    s2 = case_score({"a": [T, T], "b": [T, T], "c": [F, F], "d": [F, T]})
    # p = 0.625; var = (2*0.375^2 + 0.625^2 + 0.125^2)/4 = 0.17188; deff = 2*0.17188/0.234375 = 1.4667
    assert s2.design_effect == pytest.approx(1.46667, abs=1e-4)
    assert (s2.low, s2.high) == pytest.approx(wilson(0.625 * 8 / 1.46667, 8 / 1.46667), abs=1e-4)


def test_cases_without_scored_samples_are_left_out():
    s = case_score({"a": [True], "b": []})
    assert s.n_cases == 1
    assert case_score({}).mean is None


# --- paired comparison over 10 cases, K = 2 ---------------------------------------------------

# baseline A and candidate B per case; d = mean(B) - mean(A)
A = {"c0": [F, F], "c1": [F, F], "c2": [F, F], "c3": [T, F], "c4": [T, T],
     "c5": [F, F], "c6": [T, F], "c7": [T, F], "c8": [T, T], "c9": [F, F]}
B = {"c0": [T, T], "c1": [T, T], "c2": [T, F], "c3": [T, T], "c4": [T, T],
     "c5": [F, F], "c6": [F, T], "c7": [T, F], "c8": [T, F], "c9": [T, T]}
D = [1, 1, 0.5, 0.5, 0, 0, 0, 0, -0.5, 1]  # ties at 0 (four) and at ±0.5 / 1


def test_paired_difference_by_hand():
    r = paired_diff(A, B)
    # mean 3.5/10; squared deviations sum to 2.525, var = 2.525/9 = 0.280556, SE = 0.167498
    # t(0.975, 9) = 2.262157 -> half width 0.378906
    assert r.n_cases == 10 and r.k == 2
    assert r.diff == pytest.approx(0.35)
    assert (r.low, r.high) == pytest.approx((0.35 - 0.378906, 0.35 + 0.378906), abs=1e-5)
    # six nonzero |d| = 1,1,1,.5,.5,.5 (sum 4.5): |S| >= 3.5 when the flipped magnitudes sum to <= 0.5
    # (4 subsets) or >= 4 (4 subsets): 8 of 64 patterns
    assert r.p_value == pytest.approx(0.125) and r.p_method == "exact"
    # within-case variances (K = 2, unbiased 2p(1-p)): A has three split cases -> 1.5/10, B four -> 2/10
    assert r.var_within_a == pytest.approx(0.15) and r.var_within_b == pytest.approx(0.20)
    # omega^2 = 0.280556 - 0.35/2 = 0.105556; MDE = (t.975 + t.80 at df 9 = 3.145510) * sqrt(var_d/10)
    assert r.var_between == pytest.approx(0.105556, abs=1e-6)
    assert r.mde == pytest.approx(3.145510 * math.sqrt(0.280556 / 10), abs=1e-5)
    assert mde_at(r, 10) == pytest.approx(3.145510 * math.sqrt((0.105556 + 0.035) / 10), abs=1e-5)
    assert mde_at(r, 1) > r.mde > mde_at(r, 10)


def test_paired_difference_matches_scipy():
    r = paired_diff(A, B)
    ci = sp.ttest_1samp(D, 0.0).confidence_interval(0.95)
    assert (r.low, r.high) == pytest.approx((ci.low, ci.high))
    perm = sp.permutation_test((D,), lambda x, axis: abs(x.mean(axis=axis)), permutation_type="samples",
                               alternative="greater", n_resamples=10_000)
    assert r.p_value == pytest.approx(perm.pvalue)


def test_zero_variance_difference():
    a = {f"c{i}": [F, F] for i in range(10)}
    b = {f"c{i}": [T, F] for i in range(10)}
    r = paired_diff(a, b)
    assert r.diff == 0.5 and r.p_value == pytest.approx(2 / 1024)  # only all-plus and all-minus reach |sum| = 5
    # sd(d) = 0, but B's within-case variance is 2 * 0.5 * 0.5 = 0.5 per case: Var(d) >= (0 + 0.5)/K = 0.25,
    # so the interval is 0.5 -+ 2.262157 * sqrt(0.25/10) = 0.5 -+ 0.357679, not [0.5, 0.5]
    assert (r.low, r.high) == pytest.approx((0.142321, 0.857679), abs=1e-5)
    # omega^2 = max(0, 0 - 0.5/2) = 0
    assert r.var_between == 0 and r.mde == pytest.approx(3.145510 * math.sqrt(0.25 / 10), abs=1e-5)


def test_zero_variance_at_one_sample_per_case_keeps_the_observed_interval():
    # at K = 1 within-case noise cannot be told from the effect; every case flipped: the t interval is [1, 1]
    r = paired_diff({f"c{i}": [F] for i in range(10)}, {f"c{i}": [T] for i in range(10)})
    assert r.low == r.high == 1.0 and r.p_value == pytest.approx(2 / 1024)


def test_no_variation_at_all_has_no_mde():
    same = {f"c{i}": [T, T] for i in range(5)}
    r = paired_diff(same, same)
    assert r.diff == 0 and r.p_value == 1.0 and r.mde is None


def test_k1_mde_uses_the_agresti_coull_bound():
    a = {f"c{i}": [i < 5] for i in range(10)}
    b = {f"c{i}": [i < 7] for i in range(10)}
    r = paired_diff(a, b)
    pa, pb = 7 / 14, 9 / 14
    assert r.var_within_a == pytest.approx(pa * (1 - pa)) and r.var_within_b == pytest.approx(pb * (1 - pb))


def test_sign_flip_known_pattern_and_monte_carlo():
    assert sign_flip_p([1, 1, 1, 1])[0] == pytest.approx(2 / 16)
    assert sign_flip_p([1, -1, 1, -1])[0] == 1.0
    p, method = sign_flip_p([1.0] * 20)
    assert method.startswith("monte-carlo") and p < 0.001


def test_only_cases_scored_in_both_arms_pair():
    r = paired_diff({"a": [T], "b": [F], "c": []}, {"a": [T], "b": [T], "c": [T], "d": [F]})
    assert r.n_cases == 2


def test_holm():
    adj = holm({"x": 0.01, "y": 0.04, "z": 0.03, "w": None})
    assert adj == {"x": pytest.approx(0.03), "y": pytest.approx(0.06), "z": pytest.approx(0.06), "w": None}

import math

from harness.stats import case_score, t975, wilson


def test_wilson_known_values():
    low, high = wilson(10, 10)
    assert math.isclose(low, 0.7225, abs_tol=1e-3) and high == 1.0
    low, high = wilson(5, 10)
    assert math.isclose(low, 0.2366, abs_tol=1e-3) and math.isclose(high, 0.7634, abs_tol=1e-3)


def test_one_sample_per_case_uses_wilson():
    s = case_score({f"c{i}": [i < 8] for i in range(10)})
    assert s.method == "wilson" and s.mean == 0.8 and s.n_cases == 10


def test_repeats_use_t_over_case_means():
    per_case = {"a": [True, True], "b": [True, False], "c": [False, False]}
    s = case_score(per_case)
    means = [1.0, 0.5, 0.0]
    sd = math.sqrt(sum((m - 0.5) ** 2 for m in means) / 2)
    assert s.method == "t" and s.mean == 0.5
    assert math.isclose(s.high, min(1.0, 0.5 + 4.303 * sd / math.sqrt(3)))
    assert s.low == 0.0


def test_cases_without_scored_samples_are_left_out():
    s = case_score({"a": [True], "b": []})
    assert s.n_cases == 1
    assert case_score({}).mean is None


def test_t_quantiles():
    assert t975(9) == 2.262 and t975(22) == 2.086 and t975(200) == 1.96

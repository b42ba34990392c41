import numpy as np

from checks import check_table, spike_problems
from data import load_exports


def test_exports_pass_series_checks():
    problems = check_table(load_exports("data/exports"))
    assert all("readings beyond" in p for p in problems)


def test_spikes_found():
    table = load_exports("data/exports").take(np.arange(400))
    table.features[5, 0] = 1e4
    assert any(p.startswith(f"{table.feature_names[0]}: 1 ") for p in spike_problems(table))

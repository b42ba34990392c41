import numpy as np

from data import STATES, load_exports, split_by_cow
from dataset import Standardizer, WindowDataset, cow_keys, cow_order, window_features, with_deltas


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(set(table.window_ids))
    assert table.features.shape == (len(table), 11)
    assert len(table.visits) == len(table.logged_h) == len(table)
    assert set(np.unique(table.labels)) == set(range(len(STATES)))


def test_split_keeps_cows_apart():
    table = load_exports("data/exports")
    train, val = split_by_cow(table, 0.25, 2026)
    cows = lambda t: set(zip(t.farms, t.collars))  # noqa: E731
    assert not cows(train) & cows(val)
    assert len(train) + len(val) == len(table)


def test_first_window_has_no_change():
    table = load_exports("data/exports")
    order = cow_order(table)
    x = with_deltas(window_features(table)[order], cow_keys(table)[order])
    assert np.all(x[0, 12:] == 0)
    assert np.all(np.diff(table.start_h[order][:10]) >= 0)


def test_change_is_against_recent_mean():
    table = load_exports("data/exports").take(np.arange(8))
    order = np.arange(8)
    f = window_features(table)
    x = with_deltas(f[order], np.array(["ashby/C01"] * 8), span=2)
    assert np.allclose(x[5, 12:], f[5] - f[3:5].mean(axis=0), atol=1e-6)


def test_dataset_rows_are_windows():
    table = load_exports("data/exports").take(np.arange(200))
    ds = WindowDataset(table, Standardizer(np.zeros(24), np.ones(24)))
    for i in (0, 57, 199):
        row = np.flatnonzero(table.window_ids == ds.window_ids[i])[0]
        assert np.allclose(ds.x[i, :11].numpy(), table.features[row])
        assert int(ds.y[i]) == table.labels[row]

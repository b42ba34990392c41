import numpy as np

from data import STATES, load_exports, split_by_cow
from dataset import Standardizer, WindowDataset, cow_order, with_deltas


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(set(table.window_ids))
    assert table.features.shape == (len(table), 12)
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
    x = with_deltas(table, order)
    assert np.all(x[0, 12:] == 0)
    assert np.all(np.diff(table.start_h[order][:10]) >= 0)


def test_change_is_against_recent_mean():
    table = load_exports("data/exports").take(np.arange(8))
    order = np.arange(8)
    table.collars[:] = "C01"
    table.start_h[:] = np.arange(8) * 6
    x = with_deltas(table, order, span=2)
    assert np.allclose(x[5, 12:], table.features[5] - table.features[3:5].mean(axis=0), atol=1e-6)


def test_dataset_rows_are_windows():
    table = load_exports("data/exports").take(np.arange(200))
    ds = WindowDataset(table, Standardizer(np.zeros(24), np.ones(24)))
    for i in (0, 57, 199):
        row = np.flatnonzero(table.window_ids == ds.window_ids[i])[0]
        assert np.allclose(ds.x[i, :12].numpy(), table.features[row])
        assert int(ds.y[i]) == table.labels[row]

import numpy as np

from data import STATES, load_exports, split_by_house
from dataset import METERS, Standardizer, WindowDataset, zone_order, with_deltas
from sampling import balanced_weights


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(set(table.window_ids))
    assert tuple(table.features.shape) == (len(table), 20)
    assert set(np.unique(table.labels)) == set(range(len(STATES)))


def test_split_holds_out_one_house():
    table = load_exports("data/exports")
    train, val = split_by_house(table, "west-range")
    assert set(val.houses) == {"west-range"} and "west-range" not in set(train.houses)
    assert len(train) + len(val) == len(table)


def test_deltas_restart_at_each_zone():
    table = load_exports("data/exports")
    order = zone_order(table)
    x = with_deltas(table, order).numpy()
    first = np.r_[True, table.zones[order][1:] != table.zones[order][:-1]]
    assert np.all(x[first, 20:] == 0)


def test_dataset_rows_are_windows():
    table = load_exports("data/exports").take(np.arange(200))
    ds = WindowDataset(table, Standardizer(np.zeros(40), np.ones(40)))
    readings = [j for j, n in enumerate(table.feature_names) if n not in METERS]
    for i in (0, 57, 199):
        row = np.flatnonzero(table.window_ids == ds.window_ids[i])[0]
        assert np.allclose(ds.x[i, readings].numpy(), table.features[row, readings].numpy())
        assert int(ds.y[i]) == table.labels[row]


def test_meter_reads_usage_since_previous_window():
    table = load_exports("data/exports")
    order = zone_order(table)
    x = with_deltas(table, order).numpy()
    j = table.feature_names.index(METERS[0])
    same = np.flatnonzero(table.zones[order][1:] == table.zones[order][:-1]) + 1
    assert np.allclose(x[same, j], table.features.numpy()[order][same, j] - table.features.numpy()[order][same - 1, j])


def test_balanced_weights_equal_class_mass():
    labels = np.array([0, 0, 0, 1, 2, 2])
    houses = np.array(["a", "a", "b", "a", "a", "b"])
    w = balanced_weights(houses, labels, 3)
    assert np.isclose(w.sum(), 1.0)
    assert np.allclose([w[labels == c].sum() for c in range(3)], 1 / 3)
    assert np.isclose(w[(labels == 0) & (houses == "a")].sum(), w[(labels == 0) & (houses == "b")].sum())

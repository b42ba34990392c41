import numpy as np

from data import CONDITIONS, load_exports, split_by_wagon
from dataset import PassDataset, Standardizer, wagon_order, with_deltas
from sampling import build_train_loader
from config import load_config
from spectrum import relative_levels


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(set(table.pass_ids))
    assert table.features.shape == (len(table), len(table.feature_names)) == (len(table), 20)
    assert set(np.unique(table.labels)) == set(range(len(CONDITIONS)))


def test_split_keeps_wagons_apart():
    table = load_exports("data/exports")
    train, val = split_by_wagon(table, 0.25, 2026)
    assert not set(train.wagons) & set(val.wagons)
    assert len(train) + len(val) == len(table)


def test_deltas_restart_at_each_wagon():
    table = load_exports("data/exports")
    order = wagon_order(table)
    x = with_deltas(table, order)
    first = np.flatnonzero(np.r_[True, table.wagons[order][1:] != table.wagons[order][:-1]])
    assert len(first) == len(set(table.wagons))
    assert bool((x[first, 20:] == x[first + 1, 20:]).all())


def test_dataset_rows_are_passes():
    table = load_exports("data/exports").take(np.arange(200))
    ds = PassDataset(table, Standardizer(np.zeros(40), np.ones(40)))
    readings = relative_levels(table.features, table.feature_names)
    for i in (0, 57, 199):
        row = np.flatnonzero(table.pass_ids == ds.pass_ids[i])[0]
        assert np.allclose(ds.x[i, :20].numpy(), readings[row].numpy())
        assert int(ds.y[i]) == table.labels[row]


def test_pass_weights_in_range():
    table = load_exports("data/exports")
    w = table.take(np.arange(100, 300)).weights
    assert w.shape == (200,) and w.dtype == np.float32 and w.min() > 0 and w.max() <= 1


def test_train_batches_carry_weights():
    table = load_exports("data/exports").take(np.arange(300))
    cfg = load_config("configs/fleet26.toml")
    loader = build_train_loader(table, Standardizer(np.zeros(40), np.ones(40)), cfg.data, 0)
    x, y, w = next(iter(loader))
    assert x.shape == (cfg.data.batch_size, 40) and y.shape == w.shape == (cfg.data.batch_size,)

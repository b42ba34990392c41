import numpy as np

from data import STATES, load_exports, split_by_cow
from features import Scaler, cow_baselines, input_names, model_inputs


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(set(table.window_ids))
    assert table.features.shape == (len(table), 10)
    assert set(np.unique(table.labels)) == set(range(len(STATES)))


def test_split_keeps_cows_apart():
    table = load_exports("data/exports")
    train, val = split_by_cow(table, 0.25, 2026)
    assert len(train) + len(val) == len(table)
    for farm in set(table.farms):
        assert not set(train.cows[train.farms == farm]) & set(val.cows[val.farms == farm])


def test_inputs_are_departures_from_each_cows_median():
    table = load_exports("data/exports")
    x = model_inputs(table)
    assert x.shape == (len(table), 10)
    assert len(input_names(table)) == 10
    first = table.farms == table.farms[0]
    cow = first & (table.cows == table.cows[0])
    assert np.allclose(np.median(x[cow], axis=0), 0.0, atol=1e-4)
    assert np.allclose(cow_baselines(table, table.features)[cow][0], np.median(table.features[cow], axis=0))


def test_scaler_centers_training_inputs():
    rng = np.random.default_rng(0)
    x = rng.normal(5.0, 2.0, size=(4000, 3)).astype(np.float32)
    z = Scaler.fit(x)(x)
    assert np.allclose(np.median(z, axis=0), 0.0, atol=1e-3)
    assert np.allclose(np.median(np.abs(z), axis=0), 1 / 1.4826, atol=0.02)

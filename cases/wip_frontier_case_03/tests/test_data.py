import numpy as np

from data import STATES, load_exports, split_by_cow
from dataset import Scaler, band_columns, input_names, model_inputs, motion_shape


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(set(table.window_ids))
    assert table.features.shape == (len(table), 13)
    assert set(np.unique(table.labels)) == set(range(len(STATES)))


def test_split_keeps_cows_apart():
    table = load_exports("data/exports")
    train, val = split_by_cow(table, 0.25, 2026)
    assert len(train) + len(val) == len(table)
    for farm in set(table.farms):
        assert not set(train.cows[train.farms == farm]) & set(val.cows[val.farms == farm])


def test_motion_shape_ignores_collar_fit():
    rng = np.random.default_rng(0)
    e = 10.0 ** rng.normal(2.0, 0.5, size=(50, 4))
    s = motion_shape(e)
    assert np.allclose(np.sum(10.0 ** s, axis=1), 1.0)
    assert np.allclose(motion_shape(e * 17.0), s)


def test_inputs_layout():
    table = load_exports("data/exports")
    x = model_inputs(table)
    names = input_names(table)
    assert x.shape == (len(table), len(names)) == (len(table), 13)
    assert np.isfinite(x).all()
    bands = band_columns(table.feature_names)
    assert len(bands) == 4
    assert np.allclose(x[:, :9], np.delete(table.features, bands, axis=1))


def test_scaler_centers_training_inputs():
    rng = np.random.default_rng(0)
    x = rng.normal(5.0, 2.0, size=(4000, 3)).astype(np.float32)
    z = Scaler.fit(x)(x)
    assert np.allclose(np.median(z, axis=0), 0.0, atol=1e-3)
    assert np.allclose(np.median(np.abs(z), axis=0), 1 / 1.4826, atol=0.02)

import numpy as np
import torch

from catalog import load_exports
from dataset import DERIVED, PICK_COLUMNS, RecordDataset, derived_features, network_gaps, relative_band_power


class Identity:
    def __call__(self, counts):
        return np.asarray(counts, dtype=np.float64)


def test_catalog_in_pick_time_order():
    table = load_exports("data/exports")
    assert (np.diff(table.t_hours) >= 0).all()


def test_gaps_are_log_hours():
    g = network_gaps(np.array([0.0, 1.0, 11.0]))
    assert np.allclose(g, [0.0, 0.0, 1.0])


def test_features_standardized():
    table = load_exports("data/exports")
    ds = RecordDataset(table, Identity())
    n = 16 + len(PICK_COLUMNS) + len(DERIVED) + 1
    assert ds.x.shape == (len(table), n)
    assert torch.allclose(ds.x.mean(0), torch.zeros(n), atol=1e-4)


def test_transform_applied_on_read():
    table = load_exports("data/exports")
    ds = RecordDataset(table, Identity(), transform=lambda x, n: x + 1.0)
    x, _ = ds[3]
    assert torch.allclose(x, ds.x[3] + 1.0)


def test_derived_features_one_per_pair():
    table = load_exports("data/exports")
    d = derived_features(table.bands, table.band_names)
    assert d.shape == (len(table), len(DERIVED))
    assert np.isfinite(d).all()


def test_relative_band_power_shares_sum_to_one():
    rng = np.random.default_rng(0)
    b = rng.normal(8.0, 1.0, size=(50, 16))
    s = relative_band_power(b)
    assert np.allclose((10.0 ** s).sum(axis=1), 1.0)
    assert np.allclose(relative_band_power(b + 2.5), s)

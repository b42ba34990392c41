import numpy as np
import torch

from data import STATES, load_exports, split_by_cow
from dataset import JAW_BANDS, Standardizer, WindowDataset, cow_keys, cow_order, jaw_spectrum, model_inputs, with_deltas


def test_exports_load():
    table = load_exports("data/exports")
    assert len(table) == len(set(table.window_ids))
    assert table.features.shape == (len(table), len(table.feature_names))
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
    x, _, _ = model_inputs(table)
    assert np.all(x[0, len(table.feature_names):] == 0)
    assert np.all(np.diff(table.start_h[order][:10]) >= 0)


def test_change_is_against_previous_window():
    x = torch.arange(12.0).reshape(6, 2) ** 2
    cows = np.array(["ashby/C01"] * 3 + ["ashby/C02"] * 3)
    out = with_deltas(x, cows)
    assert torch.equal(out[:, :2], x)
    assert torch.equal(out[2, 2:], x[2] - x[1])
    assert torch.all(out[3, 2:] == 0)


def test_jaw_spectrum_sums_to_one():
    table = load_exports("data/exports").take(np.arange(300))
    names = list(table.feature_names)
    out = jaw_spectrum(table.features, names)
    cols = [names.index(b) for b in JAW_BANDS]
    assert torch.allclose(out[:, cols].sum(dim=1), torch.ones(len(table), dtype=out.dtype))
    rest = [i for i in range(len(names)) if i not in cols]
    assert torch.equal(out[:, rest], table.features[:, rest])


def test_dataset_rows_are_windows():
    table = load_exports("data/exports").take(np.arange(200))
    ds = WindowDataset(table, Standardizer(np.zeros(24), np.ones(24)))
    for i in (0, 57, 199):
        row = np.flatnonzero(table.window_ids == ds.window_ids[i])[0]
        assert np.allclose(ds.x[i, :12].numpy(), jaw_spectrum(table.features[row:row + 1],
                                                              list(table.feature_names))[0].numpy())
        assert int(ds.y[i]) == table.labels[row]

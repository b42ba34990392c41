"""Model inputs: each window's readings and their change since the cow's previous window, standardized."""

import numpy as np
import torch
from torch.utils.data import Dataset


def cow_keys(table):
    """One key per cow: farm and collar tag."""
    return np.char.add(np.char.add(table.farms.astype(str), "/"), table.collars.astype(str))


def cow_order(table):
    """Row indices grouped by cow, each cow's windows in time order."""
    keys = cow_keys(table)
    order = []
    for cow in sorted(set(keys)):
        rows = np.flatnonzero(keys == cow)
        order.append(rows[np.argsort(table.start_h[rows], kind="stable")])
    return np.concatenate(order)


JAW_BANDS = ("jaw_63hz", "jaw_125hz", "jaw_250hz", "jaw_500hz", "jaw_1khz", "jaw_2khz")


def jaw_spectrum(x, names):
    """The collar's jaw microphone reports the window's sound energy in six octave bands (the JAW_BANDS
    columns). Its gain depends on how the collar sits on the neck (fit, strap tension, microphone age), so the
    same chewing reads many times louder on one collar than on another; the bands are taken as shares of the
    window's total over the bands: the chewing spectrum's shape, summing to 1. Other columns are unchanged."""
    x = torch.as_tensor(x).clone()
    cols = [names.index(b) for b in JAW_BANDS if b in names]
    energy = x[:, cols]
    x[:, cols] = energy / energy.sum(dim=1, keepdim=True).clamp_min(1e-12)
    return x


def with_deltas(x, cows):
    """[x, x - the same cow's previous row] for rows grouped by cow in time order; a cow's first window gets
    a zero change."""
    x = torch.as_tensor(x)
    same = torch.from_numpy(np.asarray(cows[1:] == cows[:-1]))
    delta = torch.zeros_like(x)
    delta[1:][same] = x[1:][same] - x[:-1][same]
    return torch.cat([x, delta], dim=1)


def model_inputs(table):
    """The inputs of every window, in cow order, with the window ids and labels in the same order."""
    order = cow_order(table)
    x = jaw_spectrum(table.features[torch.as_tensor(order)], list(table.feature_names))
    x = with_deltas(x, cow_keys(table)[order])
    return x.numpy(), table.window_ids[order], table.labels[order]


class Standardizer:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.maximum(np.asarray(std, dtype=np.float32), 1e-6)

    @classmethod
    def fit(cls, x):
        return cls(x.mean(axis=0), x.std(axis=0))

    def __call__(self, x):
        return (x - self.mean) / self.std


class WindowDataset(Dataset):
    def __init__(self, table, standardizer):
        x, self.window_ids, y = model_inputs(table)
        self.x = torch.from_numpy(standardizer(x).astype(np.float32))
        self.y = torch.from_numpy(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

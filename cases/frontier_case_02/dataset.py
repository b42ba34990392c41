"""Model inputs: each window's readings and their change since the cow's previous window, standardized."""

import numpy as np
import torch
from torch.utils.data import Dataset


def cow_order(table):
    """Row indices grouped by collar, each collar's windows in time order."""
    order = []
    for collar in sorted(set(table.collars)):
        rows = np.flatnonzero(table.collars == collar)
        order.append(rows[np.argsort(table.start_h[rows], kind="stable")])
    return np.concatenate(order)


def with_deltas(table, order, span=4):
    """[readings, readings - the mean of the same collar's previous `span` windows] for the rows in
    `order` (collar-grouped, time-ordered); a collar's first window gets a zero change."""
    x = table.features[order]
    collars = table.collars[order]
    delta = np.zeros_like(x)
    for i in range(1, len(x)):
        lo = i
        while lo > 0 and i - lo < span and collars[lo - 1] == collars[i]:
            lo -= 1
        if lo < i:
            delta[i] = x[i] - x[lo:i].mean(axis=0)
    return np.hstack([x, delta])


def model_inputs(table):
    """The inputs of every window, in cow order, with the window ids and labels in the same order."""
    order = cow_order(table)
    return with_deltas(table, order), table.window_ids[order], table.labels[order]


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

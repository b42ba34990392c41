"""Model inputs: each window's readings, its feed-bunk visit rate, and their change since the cow's previous
windows, standardized."""

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


def visit_rates(visits, logged_h):
    """Feed-bunk visits per hour the tag was in range; a window with no reading gets 0."""
    rate = np.zeros_like(visits)
    seen = logged_h > 0
    rate[seen] = visits[seen] / logged_h[seen]
    return rate


def window_features(table):
    """Per window: the gateway's readings and the bunk visit rate, in the table's order."""
    return np.column_stack([table.features, visit_rates(table.visits, table.logged_h)]).astype(np.float32)


def with_deltas(x, cows, span=4):
    """[x, x - the mean of the same cow's previous `span` rows] for rows grouped by cow in time order;
    a cow's first window gets a zero change."""
    delta = np.zeros_like(x)
    for i in range(1, len(x)):
        lo = i
        while lo > 0 and i - lo < span and cows[lo - 1] == cows[i]:
            lo -= 1
        if lo < i:
            delta[i] = x[i] - x[lo:i].mean(axis=0)
    return np.hstack([x, delta])


def model_inputs(table):
    """The inputs of every window, in cow order, with the window ids and labels in the same order."""
    order = cow_order(table)
    x = with_deltas(window_features(table)[order], cow_keys(table)[order])
    return x, table.window_ids[order], table.labels[order]


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

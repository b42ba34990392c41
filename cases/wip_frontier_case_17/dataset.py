"""Model inputs: each pass's readings and their change since the wagon's previous pass, standardized."""

import numpy as np
import torch
from torch.utils.data import Dataset

from spectrum import relative_levels


def wagon_order(table):
    """Row indices grouped by wagon, each wagon's passes in time order."""
    order = []
    for wagon in sorted(set(table.wagons)):
        rows = np.flatnonzero(table.wagons == wagon)
        order.append(rows[np.argsort(table.pass_h[rows], kind="stable")])
    return np.concatenate(order)


def with_deltas(table, order):
    """[readings, readings - previous pass's readings] for the rows in `order` (wagon-grouped); a wagon's
    first pass, which has no previous pass, takes its second pass's change."""
    x = relative_levels(table.features, table.feature_names)[torch.as_tensor(order)]
    wagons = table.wagons[order]
    same = wagons[1:] == wagons[:-1]
    delta = torch.zeros_like(x)
    delta[1:] = x[1:] - x[:-1]
    first = np.flatnonzero(np.r_[True, ~same])
    delta[first] = delta[np.minimum(first + 1, len(x) - 1)]
    return torch.cat([x, delta], dim=1)


class Standardizer:
    def __init__(self, mean, std):
        self.mean = torch.as_tensor(mean)
        self.std = torch.as_tensor(std).clamp_min(1e-6)

    def __call__(self, x):
        return (x - self.mean) / self.std


class PassDataset(Dataset):
    def __init__(self, table, standardizer):
        order = wagon_order(table)
        self.rows = order
        self.pass_ids = table.pass_ids[order]
        self.wagons = table.wagons[order]
        self.sites = table.sites[order]
        self.x = standardizer(with_deltas(table, order)).float()
        self.y = torch.from_numpy(table.labels[order])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

"""Model inputs: each pass's readings and their change since the wagon's previous pass, standardized."""

import numpy as np
import torch
from torch.utils.data import Dataset


def wagon_order(table):
    """Row indices grouped by wagon, each wagon's passes in time order."""
    order = []
    for wagon in sorted(set(table.wagons)):
        rows = np.flatnonzero(table.wagons == wagon)
        order.append(rows[np.argsort(table.pass_h[rows], kind="stable")])
    return np.concatenate(order)


def with_deltas(table, order):
    """[readings, readings - previous pass's readings] for the rows in `order` (wagon-grouped)."""
    x = table.features[order]
    wagons = table.wagons[order]
    delta = np.zeros_like(x)
    same = wagons[1:] == wagons[:-1]
    delta[1:][same] = x[1:][same] - x[:-1][same]
    return np.hstack([x, delta])


class Standardizer:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.maximum(np.asarray(std, dtype=np.float32), 1e-6)

    def __call__(self, x):
        return (x - self.mean) / self.std


class PassDataset(Dataset):
    def __init__(self, table, standardizer):
        order = wagon_order(table)
        self.rows = order
        self.pass_ids = table.pass_ids[order]
        self.wagons = table.wagons[order]
        self.sites = table.sites[order]
        self.x = torch.from_numpy(standardizer(with_deltas(table, order)).astype(np.float32))
        self.y = torch.from_numpy(table.labels[order])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

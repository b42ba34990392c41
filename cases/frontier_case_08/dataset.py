"""Model inputs: each window's readings and their change since the zone's previous window, standardized."""

import numpy as np
import torch
from torch.utils.data import Dataset


def zone_keys(table):
    """Each house's controller numbers its own zones (Z01, Z02, ...): a zone is a (house, zone) pair."""
    return np.char.add(np.char.add(table.houses.astype(str), "/"), table.zones.astype(str))


def zone_order(table):
    """Row indices grouped by zone, each zone's windows in time order."""
    keys = zone_keys(table)
    order = []
    for key in sorted(set(keys)):
        rows = np.flatnonzero(keys == key)
        order.append(rows[np.argsort(table.start_h[rows], kind="stable")])
    return np.concatenate(order)


METERS = ("water_meter_l",)  # a meter reading: the window reads the volume used since the previous window


def with_deltas(table, order):
    """[readings, readings - previous window's readings] for the rows in `order` (zone-grouped). A meter
    column becomes the window's usage (its total minus the previous window's total); a zone's first window,
    which has no previous total, takes its second window's usage."""
    x = table.features[torch.as_tensor(order)].clone()
    zones = zone_keys(table)[order]
    same = torch.from_numpy(zones[1:] == zones[:-1])
    first = torch.from_numpy(np.flatnonzero(np.r_[True, ~same.numpy()]))
    for j in [table.feature_names.index(n) for n in METERS if n in table.feature_names]:
        used = torch.empty_like(x[:, j])
        used[1:] = x[1:, j] - x[:-1, j]
        used[first] = used[first + 1]
        x[:, j] = used
    delta = torch.zeros_like(x)
    delta[1:][same] = x[1:][same] - x[:-1][same]
    return torch.cat([x, delta], dim=1)


class Standardizer:
    def __init__(self, mean, std):
        self.mean = torch.as_tensor(mean)
        self.std = torch.as_tensor(std).clamp_min(1e-6)

    def __call__(self, x):
        return (x - self.mean) / self.std


class WindowDataset(Dataset):
    def __init__(self, table, standardizer):
        order = zone_order(table)
        self.window_ids = table.window_ids[order]
        self.zones = table.zones[order]
        self.houses = table.houses[order]
        self.x = standardizer(with_deltas(table, order))
        self.y = torch.from_numpy(table.labels[order])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

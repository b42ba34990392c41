"""Feature pipeline: raw BMS columns -> model inputs.

Buildings differ a lot in scale, so inputs are standardized within each batch (batches
never mix buildings); the target is scaled once with statistics of the training rows.
"""

import math

import torch

from data import COLUMNS

LOG_COLUMNS = ("solar_wm2", "occupancy", "lag_kwh")


def encode(raw):
    """Log-compress the heavy-tailed counts and turn the hour into a point on the circle."""
    cols = []
    for j, name in enumerate(COLUMNS):
        v = raw[:, j]
        if name == "hour":
            angle = 2.0 * math.pi * v / 24.0
            cols += [torch.sin(angle), torch.cos(angle)]
        elif name in LOG_COLUMNS:
            cols.append(torch.log1p(v))
        else:
            cols.append(v)
    return torch.stack(cols, dim=1)


def standardize(x):
    mean = x.mean(dim=0, keepdim=True)
    std = x.std(dim=0, keepdim=True)
    return (x - mean) / std


def n_inputs():
    return len(COLUMNS) + 1


class TargetScaler:
    def __init__(self, y):
        self.mean = y.mean().item()
        self.std = y.std().item()

    def transform(self, y):
        return (y - self.mean) / self.std

    def inverse(self, z):
        return z * self.std + self.mean

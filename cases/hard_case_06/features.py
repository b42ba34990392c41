"""Feature encoding: raw BMS columns -> numeric features, and the target's scaling."""

import math

import torch

from data import COLUMNS


def encode(raw, log_columns=("solar_wm2", "occupancy", "lag_kwh"), cyclic_hour=True):
    """Log-compress the heavy-tailed counts and turn the hour into a point on the circle."""
    cols = []
    for j, name in enumerate(COLUMNS):
        v = raw[:, j]
        if name == "hour" and cyclic_hour:
            angle = 2.0 * math.pi * v / 24.0
            cols += [torch.sin(angle), torch.cos(angle)]
        elif name in log_columns:
            cols.append(torch.log1p(v))
        else:
            cols.append(v)
    return torch.stack(cols, dim=1)


def n_features(cyclic_hour=True):
    return len(COLUMNS) + (1 if cyclic_hour else 0)


def feature_names(cyclic_hour=True):
    names = []
    for name in COLUMNS:
        names += ["hour_sin", "hour_cos"] if name == "hour" and cyclic_hour else [name]
    return names


class TargetScaler:
    """z-scores the target with the mean and std of every training row (fit once)."""

    def __init__(self, y):
        self.mean = y.mean().item()
        self.std = y.std().item()

    def transform(self, y):
        return (y - self.mean) / self.std

    def inverse(self, z):
        return z * self.std + self.mean

    def inverse_var(self, var):
        return var * self.std ** 2

    def state(self):
        return {"mean": self.mean, "std": self.std}

"""Scaling between raw units and what the model sees.

Inputs are standardized with the training rows' statistics. Targets are divided by the largest
training count, so they lie in the unit range; predictions are mapped back with the same scale.
Training rows can be weighted by age (`train.half_life_weeks`): the demand drifts over the season, so
the newest weeks count most and an hour one half-life older than the newest counts half.
"""

import numpy as np


class InputScaler:
    def fit(self, x):
        self.mean = x.mean(axis=0)
        self.std = x.std(axis=0)
        self.std[self.std < 1e-6] = 1.0
        return self

    def transform(self, x):
        return ((x - self.mean) / self.std).astype(np.float32)

    def state(self):
        return {"mean": self.mean.tolist(), "std": self.std.tolist()}


class TargetScaler:
    def fit(self, y):
        self.scale = float(np.max(y)) or 1.0
        return self

    def transform(self, y):
        return (np.asarray(y) / self.scale).astype(np.float32)

    def inverse(self, z):
        return np.asarray(z, dtype=np.float64) * self.scale

    def state(self):
        return {"scale": self.scale}


def row_weights(stations, half_life_weeks):
    """Loss weight of every training row (one per station and hour), normalized to mean 1."""
    hours = stations[0].time  # the exports all cover the same hours
    if not half_life_weeks or half_life_weeks <= 0:
        return np.ones(len(hours) * len(stations), dtype=np.float32)
    age_weeks = (hours[-1] - hours).astype(np.int64) / 168.0
    w = np.repeat(0.5 ** (age_weeks / half_life_weeks), len(stations))
    return (w / w.mean()).astype(np.float32)


def fit_scalers(train_table, cfg):
    xs = InputScaler().fit(train_table.x)
    ys = TargetScaler().fit(train_table.y)
    return xs, ys

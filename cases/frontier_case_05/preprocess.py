"""Scaling between raw units and what the model sees.

Inputs are standardized with the training rows' statistics. Targets are mapped to the unit range
by a robust maximum (a high quantile of the training targets rather than the single largest count,
so one glitchy counter reading cannot squash every other hour towards zero); predictions are mapped
back with the same scale.
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
    def __init__(self, quantile=0.98):
        self.quantile = quantile

    def fit(self, y):
        self.scale = float(np.quantile(y, self.quantile))
        if self.scale <= 0:
            self.scale = float(y.max()) or 1.0
        return self

    def transform(self, y):
        return np.clip(y / self.scale, 0.0, 1.0).astype(np.float32)

    def inverse(self, z):
        return np.asarray(z, dtype=np.float64) * self.scale

    def state(self):
        return {"quantile": self.quantile, "scale": self.scale}


def fit_scalers(train_table, cfg):
    xs = InputScaler().fit(train_table.x)
    ys = TargetScaler(cfg.data.target_scale_q).fit(train_table.y)
    return xs, ys

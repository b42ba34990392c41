"""Model inputs: each window's readings beside their departure from the cow's own usual level, scaled."""

import numpy as np

ROBUST = 1.4826  # MAD to sd for a normal distribution


def cow_baselines(table):
    """Each cow's usual level of every reading: the median over her windows (most are uneventful)."""
    levels = {}
    for cow in np.unique(table.cows):
        levels[cow] = np.median(table.features[table.cows == cow], axis=0)
    return levels


def model_inputs(table):
    """(n, 2 * n_features): the readings, then the readings minus the cow's baseline."""
    levels = cow_baselines(table)
    base = np.stack([levels[c] for c in table.cows]) if len(table) else np.zeros_like(table.features)
    return np.hstack([table.features, table.features - base]).astype(np.float32)


def input_names(table):
    return list(table.feature_names) + [f"dev_{n}" for n in table.feature_names]


class Scaler:
    """Robust scaling (median and MAD) fitted on the training inputs."""

    def __init__(self, center, spread):
        self.center = np.asarray(center, dtype=np.float32)
        self.spread = np.maximum(np.asarray(spread, dtype=np.float32), 1e-6)

    @classmethod
    def fit(cls, x):
        center = np.median(x, axis=0)
        return cls(center, ROBUST * np.median(np.abs(x - center), axis=0))

    def __call__(self, x):
        return (x - self.center) / self.spread

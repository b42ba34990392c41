"""Model inputs: each window's readings relative to the cow's own usual level, scaled."""

import numpy as np

ROBUST = 1.4826  # MAD to sd for a normal distribution


def cow_keys(table):
    """'farm/tag' per window: every farm numbers its own cows, so a tag names a cow only on its farm."""
    return np.char.add(np.char.add(table.farms.astype(str), "/"), table.cows.astype(str))


def cow_baselines(table, x):
    """Each window's baseline, row for row: the cow's typical level of every column of x, the median over
    all of her windows in the export."""
    keys = cow_keys(table)
    herd, cow = np.unique(keys, return_inverse=True)
    levels = np.stack([np.median(x[cow == i], axis=0) for i in range(len(herd))])
    return levels[cow]


def model_inputs(table):
    """(n, n_features): every reading minus the cow's baseline. Cows differ: each has her own typical lying
    time, rumination, neck temperature, yield and so on, and the spread between cows is larger than one cow's
    spread from window to window, so the readings are taken relative to the cow's own typical level."""
    x = table.features
    base = cow_baselines(table, x) if len(table) else np.zeros_like(x)
    return (x - base).astype(np.float32)


def input_names(table):
    return [f"dev_{n}" for n in table.feature_names]


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

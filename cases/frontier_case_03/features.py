"""Model inputs: each window's readings beside their departure from the cow's own usual level, scaled."""

import numpy as np

ROBUST = 1.4826  # MAD to sd for a normal distribution


def cow_keys(table):
    """'farm/tag' per window: every farm numbers its own cows, so a tag names a cow only on its farm."""
    return np.char.add(np.char.add(table.farms.astype(str), "/"), table.cows.astype(str))


def cow_baselines(table, x):
    """Each window's baseline, row for row: the usual level of every column of x for its cow, the median
    over her windows (most are uneventful)."""
    keys = cow_keys(table)
    herd, cow = np.unique(keys, return_inverse=True)
    levels = np.stack([np.median(x[cow == i], axis=0) for i in range(len(herd))])
    return levels[cow]


def changes(table):
    """Every reading's change since the cow's previous window (the table keeps each cow's windows together
    and in time order); a cow's first window takes her second window's change."""
    x = table.features
    keys = cow_keys(table)
    d = np.zeros_like(x)
    d[1:] = x[1:] - x[:-1]
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    d[first] = d[np.minimum(first + 1, len(x) - 1)]
    return d


def readings(table):
    """The readings as the model sees them: a running total (a '*_total' column: the parlour meter's milk,
    the collar's motion count) becomes the amount since the cow's previous window."""
    x = table.features.copy()
    running = [j for j, name in enumerate(table.feature_names) if name.endswith("_total")]
    if running and len(table) > 1:
        x[:, running] = changes(table)[:, running]
    return x


def model_inputs(table):
    """(n, 2 * n_features): the readings, then the readings minus the cow's baseline."""
    x = readings(table)
    base = cow_baselines(table, x) if len(table) else np.zeros_like(x)
    return np.hstack([x, x - base]).astype(np.float32)


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

"""Sanity checks on the exports before training."""

import numpy as np


def series_problems(table, window_h=6):
    """Per-cow time series within each farm's export: repeated window starts, starts off the six-hour
    grid, windows out of time order."""
    problems = []
    for farm in sorted(set(table.farms)):
        here = table.farms == farm
        for collar in sorted(set(table.collars[here])):
            starts = table.start_h[here & (table.collars == collar)]
            if len(np.unique(starts)) != len(starts):
                problems.append(f"{farm}/{collar}: repeated window starts")
            if np.any(starts % window_h != starts[0] % window_h):
                problems.append(f"{farm}/{collar}: window starts off the {window_h} h grid")
            if np.any(np.diff(starts) < 0):
                problems.append(f"{farm}/{collar}: windows out of time order")
    return problems


def feature_problems(table, limit=10.0):
    """Readings far outside the rest of their column: more than `limit` robust sd (1.4826 x the median
    absolute deviation) from the column's median."""
    x = np.asarray(table.features, dtype=np.float64)
    med = np.median(x, axis=0)
    sd = np.maximum(1.4826 * np.median(np.abs(x - med), axis=0), 1e-9)
    extreme = np.abs(x - med) > limit * sd
    return [f"{name}: {int(n)} readings beyond {limit:g} robust sd"
            for name, n in zip(table.feature_names, extreme.sum(axis=0)) if n]


def check_table(table):
    problems = series_problems(table) + feature_problems(table)
    if not np.isfinite(np.asarray(table.features)).all():
        problems.append("non-finite collar readings")
    counts = table.counts()
    if (counts == 0).any():
        missing = [c for c, n in zip(table.classes, counts) if n == 0]
        problems.append(f"no windows for {', '.join(missing)}")
    if len(set(table.window_ids)) != len(table):
        problems.append("repeated window ids")
    return problems

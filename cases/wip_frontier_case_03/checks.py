"""Sanity checks on the exports before training."""

import numpy as np


def series_problems(table, window_h=4):
    """Per-cow series within each farm: repeated window starts, starts off the four-hour grid, windows out
    of time order in the export."""
    problems = []
    for farm in sorted(set(table.farms)):
        on_farm = table.farms == farm
        for cow in sorted(set(table.cows[on_farm])):
            starts = table.start_h[on_farm & (table.cows == cow)]
            if len(np.unique(starts)) != len(starts):
                problems.append(f"{farm}/{cow}: repeated window starts")
            if np.any(starts % window_h != starts[0] % window_h):
                problems.append(f"{farm}/{cow}: window starts off the {window_h} h grid")
            if np.any(np.diff(starts) < 0):
                problems.append(f"{farm}/{cow}: windows out of time order")
    return problems


def spike_problems(table, limit=6.0, skip=()):
    """Readings more than `limit` robust sds from the column's median, per farm; a column of positive
    readings is judged on a log scale (its faults and its spread are multiplicative)."""
    problems = []
    x = table.features.copy()
    positive = (x > 0).all(axis=0)
    x[:, positive] = np.log10(x[:, positive])
    med = np.median(x, axis=0)
    mad = 1.4826 * np.median(np.abs(x - med), axis=0)
    z = np.abs(x - med) / np.maximum(mad, 1e-6)
    for farm in sorted(set(table.farms)):
        on_farm = table.farms == farm
        for j, name in enumerate(table.feature_names):
            if name in skip:
                continue
            n = int((z[on_farm, j] > limit).sum())
            if n:
                problems.append(f"{name}: {n} readings beyond {limit:g} robust sd at {farm}")
    return problems


def check_table(table):
    problems = series_problems(table) + spike_problems(table)
    if not np.isfinite(table.features).all():
        problems.append("non-finite sensor readings")
    counts = table.counts()
    if (counts == 0).any():
        missing = [c for c, n in zip(table.classes, counts) if n == 0]
        problems.append(f"no windows for {', '.join(missing)}")
    if len(set(table.window_ids)) != len(table):
        problems.append("repeated window ids")
    return problems

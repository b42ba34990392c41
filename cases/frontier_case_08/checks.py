"""Sanity checks on the inputs before training."""

import numpy as np
import torch

from dataset import METERS, zone_order, with_deltas


def input_drift(table, standardizer, threshold=0.5):
    """Inputs whose mean on this table is more than `threshold` pretraining sds from the pretraining mean."""
    z = standardizer(with_deltas(table, zone_order(table))).numpy()
    shift = z.mean(axis=0)
    names = list(table.feature_names) + [f"d_{n}" for n in table.feature_names]
    return [(names[i], float(shift[i])) for i in np.flatnonzero(np.abs(shift) > threshold)]


def series_problems(table, window_h=6):
    """Each export's per-zone time series: repeated window starts, starts off the six-hour grid, windows
    out of time order."""
    problems = []
    for house in sorted(set(table.houses)):
        mine = table.houses == house
        for zone in sorted(set(table.zones[mine])):
            starts = table.start_h[mine & (table.zones == zone)]
            if len(np.unique(starts)) != len(starts):
                problems.append(f"{house} {zone}: repeated window starts")
            if np.any(starts % window_h != starts[0] % window_h):
                problems.append(f"{house} {zone}: window starts off the {window_h} h grid")
            if np.any(np.diff(starts) < 0):
                problems.append(f"{house} {zone}: windows out of time order in the export")
    return problems


def feature_problems(table, limit=1000.0):
    """Readings far outside anything the sensors produce (after the gateway's log scaling; meters as the
    window's usage, per 100 L)."""
    x = with_deltas(table, zone_order(table))[:, :len(table.feature_names)].numpy()
    x[:, [table.feature_names.index(n) for n in METERS if n in table.feature_names]] /= 100.0
    extreme = np.abs(x) > limit
    return [f"{name}: {int(n)} readings beyond +-{limit:g}"
            for name, n in zip(table.feature_names, extreme.sum(axis=0)) if n]


def check_table(table):
    problems = series_problems(table) + feature_problems(table)
    if not torch.isfinite(table.features).all():
        problems.append("non-finite sensor readings")
    counts = table.counts()
    if (counts == 0).any():
        missing = [c for c, n in zip(table.classes, counts) if n == 0]
        problems.append(f"no windows for {', '.join(missing)}")
    if len(set(table.window_ids)) != len(table):
        problems.append("repeated window ids")
    return problems

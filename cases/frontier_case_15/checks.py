"""Sanity checks on the inputs before training."""

import numpy as np

from dataset import hive_order, with_deltas


def input_drift(table, standardizer, threshold=0.5):
    """Inputs whose mean on this table is more than `threshold` pretraining sds from the pretraining mean."""
    z = standardizer(with_deltas(table, hive_order(table)))
    shift = z.mean(axis=0)
    names = list(table.feature_names) + [f"d_{n}" for n in table.feature_names]
    return [(names[i], float(shift[i])) for i in np.flatnonzero(np.abs(shift) > threshold)]


def check_table(table):
    problems = []
    if not np.isfinite(table.features).all():
        problems.append("non-finite sensor readings")
    counts = table.counts()
    if (counts == 0).any():
        missing = [c for c, n in zip(table.classes, counts) if n == 0]
        problems.append(f"no windows for {', '.join(missing)}")
    if len(set(table.window_ids)) != len(table):
        problems.append("repeated window ids")
    return problems

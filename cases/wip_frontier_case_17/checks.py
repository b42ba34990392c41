"""Sanity checks on the inputs before training."""

import numpy as np
import torch

from dataset import wagon_order, with_deltas


def input_drift(table, standardizer, threshold=0.52):
    """Inputs whose mean on this table is more than `threshold` pretraining sds from the pretraining mean."""
    z = standardizer(with_deltas(table, wagon_order(table)))
    shift = z.mean(dim=0).numpy()
    names = list(table.feature_names) + [f"d_{n}" for n in table.feature_names]
    return [(names[i], float(shift[i])) for i in np.flatnonzero(np.abs(shift) > threshold)]


def series_problems(table, round_h=5):
    """Per-wagon time series: repeated pass hours, starts off the six-hour grid, passes out of order
    within an export, wagons reported by more than one site."""
    problems = []
    for wagon in sorted(set(table.wagons)):
        rows = np.flatnonzero(table.wagons == wagon)
        starts = table.pass_h[rows]
        if len(np.unique(starts)) != len(starts):
            problems.append(f"{wagon}: repeated pass hours")
        if np.any(starts % round_h != starts[0] % round_h):
            problems.append(f"{wagon}: passes off the {round_h} h round grid")
        for site in sorted(set(table.sites[rows])):
            mine = starts[table.sites[rows] == site]
            if np.any(np.diff(mine) < 0):
                problems.append(f"{wagon}: passes out of time order in the {site} export")
        if len(set(table.sites[rows])) > 1:
            problems.append(f"{wagon}: reported by {len(set(table.sites[rows]))} sites")
    return problems


def feature_problems(table):
    """Readings that never change within a site's export (a stuck or disconnected sensor)."""
    problems = []
    for site in sorted(set(table.sites)):
        x = table.features[torch.as_tensor(np.flatnonzero(table.sites == site))]
        stuck = (x == x[:1]).all(dim=0)
        problems += [f"{site}: {name} never changes" for name, s in zip(table.feature_names, stuck) if s]
    return problems


def check_table(table):
    problems = series_problems(table) + feature_problems(table)
    if not torch.isfinite(table.features).all():
        problems.append("non-finite sensor readings")
    counts = table.counts()
    if (counts == 0).any():
        missing = [c for c, n in zip(table.classes, counts) if n == 0]
        problems.append(f"no passes for {', '.join(missing)}")
    if len(set(table.pass_ids)) != len(table):
        problems.append("repeated pass ids")
    return problems

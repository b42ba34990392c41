"""Sanity checks on the record table, printed as warnings before training."""

import numpy as np


def check_table(table, min_per_class=40, close_s=30.0):
    problems = []
    counts = table.counts()
    for c, n in zip(table.classes, counts):
        if n < min_per_class:
            problems.append(f"only {n} records labelled {c}")
    if not np.isfinite(table.bands).all():
        problems.append("non-finite band energies")
    ids, n_ids = np.unique(table.record_ids, return_counts=True)
    if (n_ids > 1).any():
        problems.append(f"{int((n_ids > 1).sum())} record ids appear more than once")
    for station in sorted(set(table.stations)):
        t = table.t_hours[table.stations == station]
        if (np.diff(t) < 0).any():
            problems.append(f"{station}: export not in time order")
    problems += coverage_gaps(table)
    order = np.argsort(table.t_hours, kind="stable")
    t, st = table.t_hours[order], table.stations[order]
    close = int(((np.diff(t) * 3600 < close_s) & (st[1:] != st[:-1])).sum())
    if close:
        problems.append(f"{close} picks within {close_s:.0f} s of a pick at another station")
    return problems


def coverage_gaps(table, max_silence_h=24 * 7):
    """Stations silent for more than a week inside the season (a logger that stopped writing)."""
    problems = []
    start, end = table.t_hours.min(), table.t_hours.max()
    for station in sorted(set(table.stations)):
        t = np.concatenate([[start], np.sort(table.t_hours[table.stations == station]), [end]])
        longest = float(np.diff(t).max())
        if longest > max_silence_h:
            problems.append(f"{station}: silent for {longest / 24:.1f} days")
    return problems


def class_share(table):
    """Each class's share of the records, for the run log."""
    counts = table.counts()
    return {c: float(n) / max(len(table), 1) for c, n in zip(table.classes, counts)}

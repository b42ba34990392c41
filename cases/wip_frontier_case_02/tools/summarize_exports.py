"""Summarize the collar exports: windows per farm and state, cows, gaps in each cow's series.

    python -m tools.summarize_exports [--export-dir data/exports] [--by cow]
"""

import argparse
from collections import Counter

import numpy as np

from data import load_exports

WINDOW_H = 6


def cow_keys(table):
    return np.array([f"{f}/{c}" for f, c in zip(table.farms, table.collars)])


def cow_gaps(table):
    """{farm/collar: number of missing six-hour windows between its first and last window}."""
    keys = cow_keys(table)
    gaps = {}
    for cow in sorted(set(keys)):
        starts = np.sort(table.start_h[keys == cow])
        steps = np.diff(starts)
        gaps[cow] = int(np.sum(np.maximum(steps // WINDOW_H - 1, 0)))
    return gaps


def state_table(table, by):
    keys = table.farms if by == "farm" else cow_keys(table)
    rows = {}
    for key, label in zip(keys, table.labels):
        rows.setdefault(key, Counter())[table.classes[label]] += 1
    return rows


def print_table(rows, classes):
    width = max(len(k) for k in rows) + 2
    print(f"{'':{width}s}" + "".join(f"{c:>15s}" for c in classes) + f"{'total':>8s}")
    totals = Counter()
    for key in sorted(rows):
        counts = rows[key]
        totals.update(counts)
        print(f"{key:{width}s}" + "".join(f"{counts[c]:15d}" for c in classes) + f"{sum(counts.values()):8d}")
    print(f"{'all':{width}s}" + "".join(f"{totals[c]:15d}" for c in classes) + f"{sum(totals.values()):8d}")


def feature_stats(table):
    """Per farm and collar channel: mean and standard deviation of the readings."""
    stats = {}
    for farm in sorted(set(table.farms)):
        x = np.asarray(table.features, dtype=np.float64)[table.farms == farm]
        stats[farm] = (x.mean(axis=0), x.std(axis=0))
    return stats


def print_feature_stats(table):
    stats = feature_stats(table)
    names = table.feature_names
    print(f"{'feature':16s}" + "".join(f"{a:>22s}" for a in stats))
    for i, name in enumerate(names):
        cells = "".join(f"{m[i]:>12.4g} +- {s[i]:<8.4g}" for m, s in stats.values())
        print(f"{name:16s}{cells}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export-dir", default="data/exports")
    parser.add_argument("--by", choices=("farm", "cow"), default="farm")
    parser.add_argument("--features", action="store_true", help="also print per-farm channel statistics")
    args = parser.parse_args(argv)
    table = load_exports(args.export_dir)
    print(f"{len(table):,} windows, {len(set(cow_keys(table)))} cows, {len(table.feature_names)} reading columns")
    print_table(state_table(table, args.by), table.classes)
    gaps = {h: g for h, g in cow_gaps(table).items() if g}
    print("gaps: " + (", ".join(f"{h} {g}" for h, g in gaps.items()) if gaps else "none"))
    if args.features:
        print_feature_stats(table)


if __name__ == "__main__":
    main()

"""Summarize the window exports: windows per house and state, zones, gaps in each zone's series.

    python -m tools.summarize_exports [--export-dir data/exports] [--by zone]
"""

import argparse
from collections import Counter

import numpy as np

from data import load_exports

WINDOW_H = 6


def zone_keys(table):
    """'house/zone' for every window, the key the summary tables are printed under."""
    return np.char.add(np.char.add(table.houses.astype(str), "/"), table.zones.astype(str))


def zone_gaps(table):
    """{house/zone: number of missing six-hour windows between its first and last window}."""
    gaps = {}
    keys = zone_keys(table)
    for key in sorted(set(keys)):
        starts = np.sort(table.start_h[keys == key])
        steps = np.diff(starts)
        gaps[key] = int(np.sum(np.maximum(steps // WINDOW_H - 1, 0)))
    return gaps


def state_table(table, by):
    keys = table.houses if by == "house" else zone_keys(table)
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
    """Per house and sensor feature: mean and standard deviation of the raw readings."""
    stats = {}
    for house in sorted(set(table.houses)):
        x = table.features[table.houses == house].numpy()
        stats[house] = (x.mean(axis=0), x.std(axis=0))
    return stats


def print_feature_stats(table):
    stats = feature_stats(table)
    names = table.feature_names
    print(f"{'feature':16s}" + "".join(f"{a:>22s}" for a in stats))
    for i, name in enumerate(names):
        cells = "".join(f"{m[i]:>12.3f} +- {s[i]:<6.3f}" for m, s in stats.values())
        print(f"{name:16s}{cells}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export-dir", default="data/exports")
    parser.add_argument("--by", choices=("house", "zone"), default="house")
    parser.add_argument("--features", action="store_true", help="also print per-house feature statistics")
    args = parser.parse_args(argv)
    table = load_exports(args.export_dir)
    print(f"{len(table):,} windows, {len(set(zone_keys(table)))} zones, {len(table.feature_names)} sensor features")
    print_table(state_table(table, args.by), table.classes)
    gaps = {h: g for h, g in zone_gaps(table).items() if g}
    print("gaps: " + (", ".join(f"{h} {g}" for h, g in gaps.items()) if gaps else "none"))
    if args.features:
        print_feature_stats(table)


if __name__ == "__main__":
    main()

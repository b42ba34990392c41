"""Summarize the pass exports: passes per site and condition, label sources, gaps in each wagon's series.

    python -m tools.summarize_exports [--export-dir data/exports] [--by wagon]
"""

import argparse
from collections import Counter

import numpy as np
import torch

from data import load_exports

PASS_H = 5


def wagon_gaps(table):
    """{wagon: number of missing five-hour rounds between its first and last pass}."""
    gaps = {}
    for wagon in sorted(set(table.wagons)):
        starts = np.sort(table.pass_h[table.wagons == wagon])
        steps = np.diff(starts)
        gaps[wagon] = int(np.sum(np.maximum(steps // PASS_H - 1, 0)))
    return gaps


def condition_table(table, by):
    keys = table.sites if by == "site" else table.wagons
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
    """Per site and sensor feature: mean and standard deviation of the raw readings."""
    stats = {}
    for site in sorted(set(table.sites)):
        x = np.asarray(table.features[torch.as_tensor(table.sites == site)])
        stats[site] = (x.mean(axis=0), x.std(axis=0))
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
    parser.add_argument("--by", choices=("site", "wagon"), default="site")
    parser.add_argument("--features", action="store_true", help="also print per-site feature statistics")
    args = parser.parse_args(argv)
    table = load_exports(args.export_dir)
    print(f"{len(table):,} passes, {len(set(table.wagons))} wagons, {len(table.feature_names)} sensor features")
    print_table(condition_table(table, args.by), table.classes)
    sources = Counter(table.sources)
    print("label sources: " + ", ".join(f"{k} {v:,}" for k, v in sorted(sources.items())))
    gaps = {h: g for h, g in wagon_gaps(table).items() if g}
    print("gaps: " + (", ".join(f"{h} {g}" for h, g in gaps.items()) if gaps else "none"))
    if args.features:
        print_feature_stats(table)


if __name__ == "__main__":
    main()

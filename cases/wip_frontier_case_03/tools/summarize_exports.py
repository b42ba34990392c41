"""Summarize the collar exports: windows per farm and state, herd sizes, gaps in the series.

    python -m tools.summarize_exports [--export-dir data/exports] [--features]
"""

import argparse
from collections import Counter

import numpy as np

from data import load_exports

WINDOW_H = 4


def farm_gaps(table):
    """{farm: number of missing four-hour windows over the farm's cows}."""
    gaps = {}
    for farm in sorted(set(table.farms)):
        on_farm = table.farms == farm
        missing = 0
        for cow in sorted(set(table.cows[on_farm])):
            starts = np.sort(table.start_h[on_farm & (table.cows == cow)])
            missing += int(np.sum(np.maximum(np.diff(starts) // WINDOW_H - 1, 0)))
        gaps[farm] = missing
    return gaps


def state_table(table):
    rows = {}
    for farm, label in zip(table.farms, table.labels):
        rows.setdefault(farm, Counter())[table.classes[label]] += 1
    return rows


def print_table(rows, classes, herd):
    width = max(len(k) for k in rows) + 2
    print(f"{'':{width}s}{'cows':>6s}" + "".join(f"{c:>11s}" for c in classes) + f"{'total':>8s}")
    totals = Counter()
    for key in sorted(rows):
        counts = rows[key]
        totals.update(counts)
        print(f"{key:{width}s}{herd[key]:6d}" + "".join(f"{counts[c]:11d}" for c in classes)
              + f"{sum(counts.values()):8d}")
    print(f"{'all':{width}s}{sum(herd.values()):6d}" + "".join(f"{totals[c]:11d}" for c in classes)
          + f"{sum(totals.values()):8d}")


def print_feature_stats(table):
    """Per farm and reading: mean and standard deviation."""
    farms = sorted(set(table.farms))
    print(f"{'reading':16s}" + "".join(f"{f:>22s}" for f in farms))
    for i, name in enumerate(table.feature_names):
        cells = ""
        for farm in farms:
            x = table.features[table.farms == farm, i]
            cells += f"{x.mean():>12.3f} +- {x.std():<6.3f}"
        print(f"{name:16s}{cells}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export-dir", default="data/exports")
    parser.add_argument("--features", action="store_true", help="also print per-farm reading statistics")
    args = parser.parse_args(argv)
    table = load_exports(args.export_dir)
    herd = {farm: len(set(table.cows[table.farms == farm])) for farm in sorted(set(table.farms))}
    print(f"{len(table):,} windows, {len(herd)} farms, {len(table.feature_names)} readings per window")
    print_table(state_table(table), table.classes, herd)
    gaps = {f: g for f, g in farm_gaps(table).items() if g}
    print("gaps: " + (", ".join(f"{f} {g}" for f, g in gaps.items()) if gaps else "none"))
    if args.features:
        print_feature_stats(table)


if __name__ == "__main__":
    main()

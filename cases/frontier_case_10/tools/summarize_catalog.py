"""Records per station and label in the exports, and the April double review's agreement.

    python -m tools.summarize_catalog [--export-dir data/exports] [--review data/review_april.csv]
"""

import argparse
import csv
from pathlib import Path

import numpy as np

from catalog import CLASSES, load_exports


def per_station(table):
    rows = []
    for station in sorted(set(table.stations)):
        mine = table.labels[table.stations == station]
        rows.append((station, len(mine), np.bincount(mine, minlength=len(CLASSES))))
    return rows


def review_agreement(path):
    """{label of analyst A: (records, share on which analyst B agrees)}."""
    pairs = list(csv.DictReader(open(path, newline="")))
    out = {}
    for c in CLASSES:
        mine = [p for p in pairs if p["analyst_a"] == c]
        if mine:
            out[c] = (len(mine), sum(p["analyst_b"] == c for p in mine) / len(mine))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export-dir", default="data/exports")
    parser.add_argument("--review", default="data/review_april.csv")
    args = parser.parse_args(argv)
    table = load_exports(args.export_dir)
    print(f"{'station':8s} {'records':>7s} " + " ".join(f"{c[:9]:>9s}" for c in CLASSES))
    for station, n, counts in per_station(table):
        print(f"{station:8s} {n:7d} " + " ".join(f"{k:9d}" for k in counts))
    t = table.t_hours
    print(f"span: {t.min() / 24:.1f} to {t.max() / 24:.1f} days")
    if Path(args.review).exists():
        print("April double review (analyst B agrees with analyst A):")
        for c, (n, share) in review_agreement(args.review).items():
            print(f"  {c:18s} {n:4d} records  {share:.3f}")


if __name__ == "__main__":
    main()

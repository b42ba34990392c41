"""Per-station health of the exports: records per week and the longest silence, to spot a logger that
stopped writing or a station whose picks dried up.

    python -m tools.station_health [--export-dir data/exports] [--week 7]
"""

import argparse

import numpy as np

from catalog import load_exports


def weekly_counts(t_hours, weeks):
    edges = np.arange(weeks + 1) * 7 * 24
    return np.histogram(t_hours, bins=edges)[0]


def longest_silence(t_hours):
    t = np.sort(t_hours)
    if len(t) < 2:
        return float("inf")
    return float(np.diff(t).max())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export-dir", default="data/exports")
    parser.add_argument("--week", type=int, default=-1, help="print this week's count only")
    args = parser.parse_args(argv)
    table = load_exports(args.export_dir)
    weeks = int(np.ceil(table.t_hours.max() / (7 * 24)))
    print(f"{'station':8s} {'records':>7s} {'min/wk':>6s} {'max/wk':>6s} {'silence h':>9s} {'share':>6s}")
    for station in sorted(set(table.stations)):
        mine = table.stations == station
        counts = weekly_counts(table.t_hours[mine], weeks)
        share = float(mine.mean())
        shown = f"{counts[args.week]:6d}" if 0 <= args.week < weeks else f"{counts.min():6d}"
        print(f"{station:8s} {int(mine.sum()):7d} {shown} {counts.max():6d} "
              f"{longest_silence(table.t_hours[mine]):9.1f} {share:6.3f}")


if __name__ == "__main__":
    main()

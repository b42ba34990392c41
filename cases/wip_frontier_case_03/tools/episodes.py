"""Health episodes in the exports: runs of consecutive windows in one state, per farm and state.

    python -m tools.episodes [--export-dir data/exports] [--state heat] [--list]
"""

import argparse
import statistics
from collections import defaultdict

import numpy as np

from data import load_exports

WINDOW_H = 4


def episodes(table):
    """[(farm, cow, state, first start_h, number of windows)] for every run of one non-normal state."""
    found = []
    for farm in sorted(set(table.farms)):
        on_farm = table.farms == farm
        for cow in sorted(set(table.cows[on_farm])):
            rows = np.flatnonzero(on_farm & (table.cows == cow))
            rows = rows[np.argsort(table.start_h[rows], kind="stable")]
            labels, starts = table.labels[rows], table.start_h[rows]
            i = 0
            while i < len(rows):
                j = i
                while j + 1 < len(rows) and labels[j + 1] == labels[i] and starts[j + 1] - starts[j] == WINDOW_H:
                    j += 1
                if labels[i] != 0:
                    found.append((farm, cow, table.classes[labels[i]], int(starts[i]), j - i + 1))
                i = j + 1
    return found


def summary(found):
    by = defaultdict(list)
    for farm, _, state, _, n in found:
        by[(farm, state)].append(n)
    lines = [f"{'farm':12s} {'state':10s} {'episodes':>8s} {'windows':>8s} {'median h':>9s}"]
    for (farm, state), lengths in sorted(by.items()):
        lines.append(f"{farm:12s} {state:10s} {len(lengths):8d} {sum(lengths):8d} "
                     f"{statistics.median(lengths) * WINDOW_H:9.0f}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--export-dir", default="data/exports")
    parser.add_argument("--state", default="", help="only this state")
    parser.add_argument("--list", action="store_true", help="list every episode")
    args = parser.parse_args(argv)
    found = episodes(load_exports(args.export_dir))
    if args.state:
        found = [e for e in found if e[2] == args.state]
    print(summary(found))
    if args.list:
        for farm, cow, state, start, n in found:
            print(f"{farm:12s} {cow:>6s} {state:10s} from {start:5d} h, {n} windows")


if __name__ == "__main__":
    main()

"""Summarise the export: sessions per activity, split and home.

    python inspect_export.py [--root data]
"""

import argparse
from collections import Counter

from streams import read_sessions


def table(rows, key_a, key_b):
    counts = Counter((r[key_a], r[key_b]) for r in rows)
    cols = sorted({r[key_b] for r in rows})
    lines = [f"{key_a:14s}" + "".join(f"{c:>8s}" for c in cols) + f"{'total':>8s}"]
    for a in sorted({r[key_a] for r in rows}):
        values = [counts.get((a, c), 0) for c in cols]
        lines.append(f"  {a:12s}" + "".join(f"{v:8d}" for v in values) + f"{sum(values):8d}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default="data")
    args = parser.parse_args()
    rows = read_sessions(args.root)
    print(f"{len(rows)} sessions")
    print(table(rows, "activity", "split"))
    print(table(rows, "activity", "home"))


if __name__ == "__main__":
    main()

"""The April double review: where the two analysts disagree, by class pair and by week.

    python -m tools.review_disagreements [--review data/review_april.csv] [--export-dir data/exports]
"""

import argparse
import csv
from collections import Counter

import numpy as np

from catalog import CLASSES, load_exports


def read_review(path):
    with open(path, newline="") as f:
        return [(r["record_id"], r["analyst_a"], r["analyst_b"]) for r in csv.DictReader(f)]


def pair_counts(pairs):
    """Counter of (label A, label B) over the disagreeing records, the pair sorted."""
    return Counter(tuple(sorted((a, b))) for _, a, b in pairs if a != b)


def agreement_matrix(pairs):
    m = np.zeros((len(CLASSES), len(CLASSES)), dtype=np.int64)
    for _, a, b in pairs:
        m[CLASSES.index(a), CLASSES.index(b)] += 1
    return m


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--review", default="data/review_april.csv")
    parser.add_argument("--export-dir", default="data/exports")
    args = parser.parse_args(argv)
    pairs = read_review(args.review)
    table = load_exports(args.export_dir)
    when = dict(zip(table.record_ids, table.t_hours))
    m = agreement_matrix(pairs)
    print(f"{len(pairs)} records reviewed twice; agreement {np.trace(m) / max(m.sum(), 1):.3f}")
    for (a, b), n in pair_counts(pairs).most_common():
        print(f"  {a} / {b}: {n}")
    weeks = Counter(int(when[r] // (7 * 24)) for r, a, b in pairs if a != b and r in when)
    for week in sorted(weeks):
        print(f"  week {week}: {weeks[week]} disagreements")


if __name__ == "__main__":
    main()

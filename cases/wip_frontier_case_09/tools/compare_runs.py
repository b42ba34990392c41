"""Compare the metrics of two or more saved runs (directories holding metrics.json), tag by tag.

    python -m tools.compare_runs runs/v04_s0 runs/v05_s0 [--metric f1]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from export import TAGS  # noqa: E402
from report import read_metrics  # noqa: E402


def table(records, metric):
    rows = []
    for name, rec in records:
        rows.append((name, rec["frame_acc"], [rec[metric][t] for t in TAGS]))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--metric", default="recall", choices=("recall", "precision", "f1"))
    args = parser.parse_args(argv)
    records = [(Path(r).name, read_metrics(r)) for r in args.runs]
    print(f"{'run':16s} {'frame acc':>9s} " + " ".join(f"{t:>10s}" for t in TAGS))
    base = None
    for name, acc, vals in table(records, args.metric):
        print(f"{name:16s} {acc:9.4f} " + " ".join(f"{v:10.3f}" for v in vals))
        if base is None:
            base = (acc, vals)
        else:
            print(f"{'  vs first':16s} {acc - base[0]:+9.4f} "
                  + " ".join(f"{v - b:+10.3f}" for v, b in zip(vals, base[1])))


if __name__ == "__main__":
    main()

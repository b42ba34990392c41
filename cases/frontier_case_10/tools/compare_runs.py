"""Compare two runs' metrics.json (written with --set train.out_dir=...) epoch by epoch.

    python -m tools.compare_runs runs/a/metrics.json runs/b/metrics.json
"""

import argparse
import json


def load(path):
    return {row["epoch"]: row for row in json.load(open(path))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--field", action="append", default=None)
    args = parser.parse_args(argv)
    a, b = load(args.a), load(args.b)
    fields = args.field or ["train_loss", "loss", "acc", "bal_acc"]
    print("epoch " + " ".join(f"{f + ' a':>12s} {f + ' b':>12s}" for f in fields))
    for epoch in sorted(set(a) & set(b)):
        print(f"{epoch:5d} " + " ".join(f"{a[epoch][f]:12.4f} {b[epoch][f]:12.4f}" for f in fields))


if __name__ == "__main__":
    main()

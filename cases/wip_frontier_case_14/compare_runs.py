"""Compare the per-epoch metrics of runs side by side:

    python compare_runs.py runs/plant runs/plant-nols [--keys val_loss val_f1]
"""

import argparse
from pathlib import Path

from pumpwatch.report import compare_table, read_metrics


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("runs", nargs="+", help="run directories holding metrics.jsonl")
    ap.add_argument("--keys", nargs="+", default=["train_loss", "val_loss", "val_f1"])
    ap.add_argument("--file", default="metrics.jsonl")
    args = ap.parse_args(argv)
    runs = {}
    for d in args.runs:
        path = Path(d) / args.file
        if not path.is_file():
            raise SystemExit(f"{path}: no metrics file (train with --set output.dir={d})")
        runs[Path(d).name] = read_metrics(path)
    for line in compare_table(runs, tuple(args.keys)):
        print(line)
    for name, rows in runs.items():
        best = max(rows, key=lambda r: r.get("val_f1", 0.0))
        print(f"{name}: best val f1 {best['val_f1']:.3f} at epoch {best['epoch']}, last {rows[-1]['val_f1']:.3f}")


if __name__ == "__main__":
    main()

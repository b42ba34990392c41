"""Run train.py's configuration over several seeds (and optional overrides) and tabulate the results.

    python sweep.py --seeds 0,1,2 [--set train.lr=5e-4 ...] [--csv sweep.csv]
"""

import argparse
import contextlib
import csv
import io
import statistics
import time

from config import load_config
from metrics import macro_f1
from train import run


def one_run(config_path, overrides, seed, quiet=True):
    cfg = load_config(config_path, list(overrides) + [f"train.seed={seed}"])
    out = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out) if quiet else contextlib.nullcontext():
        trainer = run(cfg)
    final = trainer.history[-1]
    row = {"seed": seed, "val_acc": final["acc"], "bal_acc": final["bal_acc"],
           "macro_f1": macro_f1(final["confusion"]), "cpu_s": time.process_time() - start}
    for name, recall in zip(trainer.classes, final["recall"]):
        row[f"recall_{name}"] = float(recall)
    return row


def summarize(rows, field):
    values = [r[field] for r in rows]
    spread = statistics.pstdev(values) if len(values) > 1 else 0.0
    return f"{field} {statistics.mean(values):.4f} +- {spread:.4f} (min {min(values):.4f}, max {max(values):.4f})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/herd26.toml")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--csv", default="")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    for seed in [int(s) for s in args.seeds.split(",") if s.strip()]:
        row = one_run(args.config, args.set, seed, quiet=not args.verbose)
        rows.append(row)
        print(f"seed {seed}: val acc {row['val_acc']:.4f} | balanced acc {row['bal_acc']:.4f} "
              f"| macro F1 {row['macro_f1']:.4f} | {row['cpu_s']:.1f} s")
    for field in ("val_acc", "bal_acc", "macro_f1"):
        print(summarize(rows, field))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()

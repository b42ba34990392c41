"""Train several configs over several seeds and print one table of their final numbers.

Usage: python compare.py configs/base.toml configs/nca.toml [--seeds 0,1,2] [--set key=value ...]
"""

import argparse
import contextlib
import io
import statistics
import sys
import time

import torch

from config import load_config
from train import run_experiment

COLUMNS = ("loss", "val_loss", "val_acc", "val_top5")


def final_row(cfg, quiet=True):
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext():
        *_, rows = run_experiment(cfg)
    return rows[0], rows[-1]


def main(argv):
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    width = max(len(p) for p in args.configs)
    print(f"{'config':<{width}} | {'first val acc':>13} | " + " | ".join(f"{c:>15}" for c in COLUMNS) + " | time")
    for path in args.configs:
        t0 = time.time()
        runs = [final_row(load_config(path, [*args.overrides, f"seed={s}"]), quiet=not args.verbose) for s in seeds]
        first = statistics.mean(r[0]["val_acc"] for r in runs)
        cells = []
        for col in COLUMNS:
            values = [r[1][col] for r in runs]
            spread = statistics.pstdev(values) if len(values) > 1 else 0.0
            cells.append(f"{statistics.mean(values):7.4f} ± {spread:5.3f}")
        print(f"{path:<{width}} | {first:13.3f} | " + " | ".join(cells) + f" | {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

"""A small grid over the router's settings, several seeds each, summarised as a table.

python sweep.py --config configs/router.toml --grid optim.lr=1e-3,3e-3 --grid model.d_model=32,64 --seeds 0,1
"""

import argparse
import contextlib
import io
import itertools
import json
import statistics
import sys

import torch

from config import load_config
from train import run


def parse_grid(items):
    axes = []
    for item in items:
        key, values = item.split("=", 1)
        axes.append([(key, v) for v in values.split(",") if v])
    return axes


def sweep(config, grid, seeds, base_overrides=()):
    rows = []
    for combo in itertools.product(*grid) if grid else [()]:
        overrides = list(base_overrides) + [f"{k}={v}" for k, v in combo]
        scores = []
        for seed in seeds:
            cfg = load_config(config, overrides + [f"train.seed={seed}"])
            with contextlib.redirect_stdout(io.StringIO()):
                result = run(cfg)
            scores.append(result.summary)
        mf1 = [s["macro_f1"] for s in scores]
        acc = [s["accuracy"] for s in scores]
        rows.append({"settings": dict(combo), "macro_f1": statistics.mean(mf1), "macro_f1_min": min(mf1),
                     "accuracy": statistics.mean(acc)})
    return rows


def main(argv=None):
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="configs/router.toml")
    parser.add_argument("--grid", action="append", default=[])
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = sweep(args.config, parse_grid(args.grid), seeds, args.set)
    for row in sorted(rows, key=lambda r: -r["macro_f1"]):
        settings = " ".join(f"{k}={v}" for k, v in row["settings"].items()) or "(config)"
        print(f"{settings:40s} macro-F1 {row['macro_f1']:.3f} (min {row['macro_f1_min']:.3f}) "
              f"acc {row['accuracy']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])

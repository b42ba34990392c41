"""Grid sweep over config keys, one training run per point and seed.

    python sweep.py --grid train.lr=1e-3,3e-3 --grid model.d_model=32,48 [--seeds 0,1] [--config ...]
"""

import argparse
import itertools
import json
import statistics

from config import load_config
from train import run


def parse_grid(items):
    grid = {}
    for item in items:
        key, _, values = item.partition("=")
        if not values:
            raise SystemExit(f"--grid {item}: expected key=v1,v2,...")
        grid[key.strip()] = [v.strip() for v in values.split(",")]
    return grid


def points(grid):
    keys = sorted(grid)
    for combo in itertools.product(*(grid[k] for k in keys)):
        yield [f"{k}={v}" for k, v in zip(keys, combo)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/home.toml")
    parser.add_argument("--grid", action="append", default=[])
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--json", help="write every run's report here")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for overrides in points(parse_grid(args.grid)):
        accs, f1s = [], []
        for seed in seeds:
            cfg = load_config(args.config, overrides + [f"train.seed={seed}"])
            report = run(cfg, verbose=False)["report"]
            accs.append(report["accuracy"])
            f1s.append(report["macro_f1"])
            rows.append({"overrides": overrides, "seed": seed, "report": report})
        spread = statistics.pstdev(accs) if len(accs) > 1 else 0.0
        print(f"{' '.join(overrides) or '(config)':40s} accuracy {statistics.mean(accs):.3f} +- {spread:.3f}"
              f"  macro-f1 {statistics.mean(f1s):.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

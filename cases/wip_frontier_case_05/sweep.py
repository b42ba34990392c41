"""Small grid sweeps over config overrides and seeds.

    python sweep.py --config configs/dock.toml --grid optim.lr=1e-3,3e-3 --grid model.hidden=32,64 --seeds 0,1
"""

import argparse
import itertools

from config import load_config
from train import run


def expand(grids):
    keys, values = [], []
    for g in grids:
        key, text = g.split("=", 1)
        keys.append(key)
        values.append([v for v in text.split(",") if v])
    for combo in itertools.product(*values):
        yield [f"{k}={v}" for k, v in zip(keys, combo)]


def sweep(config, grids, seeds, station=None):
    rows = []
    for overrides in expand(grids):
        for seed in seeds:
            cfg = load_config(config, overrides + [f"train.seed={seed}"])
            report = run(cfg, print_fn=lambda *a: None)["report"]
            row = {"overrides": " ".join(overrides) or "(defaults)", "seed": seed,
                   "mae": report["all"]["mae"], "bias": report["all"]["bias"]}
            if station:
                row["station_mae"] = report[station]["mae"]
            rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/dock.toml")
    ap.add_argument("--grid", action="append", default=[])
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--station", default="")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = sweep(args.config, args.grid, seeds, args.station or None)
    for r in rows:
        extra = f"  {args.station} {r['station_mae']:.2f}" if args.station else ""
        print(f"{r['overrides']:<40} seed {r['seed']}  mae {r['mae']:.3f}  bias {r['bias']:+.3f}{extra}")


if __name__ == "__main__":
    main()

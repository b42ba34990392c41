"""Backtest over several forecast origins: hold out the last k weeks for k in --weeks, retrain on
what precedes them, and report the held-out MAE per station for each origin.

    python backtest.py --config configs/dock.toml --weeks 2,3,4
"""

import argparse

from config import load_config
from train import run


def backtest(config, weeks, seed=0, overrides=()):
    results = {}
    for k in weeks:
        cfg = load_config(config, list(overrides) + [f"data.holdout_weeks={k}", f"train.seed={seed}"])
        results[k] = run(cfg, print_fn=lambda *a: None)["report"]
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/dock.toml")
    ap.add_argument("--weeks", default="2,3,4")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--set", action="append", default=[])
    args = ap.parse_args()
    weeks = [int(w) for w in args.weeks.split(",")]
    results = backtest(args.config, weeks, args.seed, args.set)
    stations = list(next(iter(results.values())))
    print(f"{'station':<16}" + "".join(f"{f'last {k} wk':>12}" for k in weeks))
    for st in stations:
        print(f"  {st if st != 'all' else 'all stations':<14}" + "".join(f"{results[k][st]['mae']:12.2f}" for k in weeks))


if __name__ == "__main__":
    main()

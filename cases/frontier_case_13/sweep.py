"""Run one config under several overrides and seeds and print a table of the kept epochs.

    python sweep.py --config configs/cnn.toml --grid train.lr=1e-3,3e-3 --grid model.width=16,32 --seeds 0,1
"""

import argparse
import contextlib
import io
import itertools
import statistics

from config import load_config
from train import run


def parse_grid(items):
    axes = []
    for item in items:
        key, _, values = item.partition("=")
        axes.append([f"{key}={v}" for v in values.split(",") if v])
    return axes


def run_quiet(cfg):
    with contextlib.redirect_stdout(io.StringIO()):
        _, history, report = run(cfg)
    return history, report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/cnn.toml")
    parser.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    axes = parse_grid(args.grid) or [[]]
    print(f"{'overrides':40s} {'val loss':>9s} {'val acc':>8s} {'kept':>5s} {'train loss':>11s}")
    for combo in itertools.product(*axes):
        losses, accs, kept, train_losses = [], [], [], []
        for seed in seeds:
            cfg = load_config(args.config, [*args.set, *combo, f"train.seed={seed}"])
            history, report = run_quiet(cfg)
            losses.append(report["val_loss"])
            accs.append(report["val_acc"])
            kept.append(report["best_epoch"])
            train_losses.append(history[-1]["train_loss"])
        label = " ".join(combo) or "(config)"
        print(f"{label:40s} {statistics.mean(losses):9.3f} {statistics.mean(accs):8.3f} "
              f"{statistics.median(kept):5.0f} {statistics.mean(train_losses):11.3f}")


if __name__ == "__main__":
    main()

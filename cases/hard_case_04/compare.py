"""Train several configs (and seeds) and print one comparison table of their final numbers.

Usage: python compare.py configs/base.toml configs/recurrent.toml [--seeds 0,1,2] [--set key=value ...]

Each run prints its usual log; the table at the end has one row per config with the mean and
spread over seeds of the final training loss, validation loss, accuracy and macro-F1.
"""

import argparse
import contextlib
import io
import statistics
import sys
import time

import torch

from config import load_config
from metrics import macro_f1
from synth import N_CLASSES, make_dataset
from trainer import predict
from train import run_experiment

COLUMNS = ("loss", "val_loss", "val_acc", "val_f1")


def final_numbers(cfg, quiet=True):
    """The last logged row of one training run, plus the macro-F1 of its final model."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext():
        model, rows = run_experiment(cfg)
    d = cfg.data
    xs, ys = make_dataset(d.n_val, seed=cfg.seed + 100, min_frames=d.min_frames, max_frames=d.max_frames)
    logits = predict(model, xs, cfg.eval.batch_size)
    last = dict(rows[-1])
    last["val_f1"] = macro_f1(logits.argmax(dim=-1), ys, N_CLASSES)
    return last


def summarize_runs(rows):
    out = {}
    for col in COLUMNS:
        values = [r[col] for r in rows]
        spread = statistics.pstdev(values) if len(values) > 1 else 0.0
        out[col] = (statistics.mean(values), spread)
    return out


def main(argv):
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--verbose", action="store_true", help="show every run's training log")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    table = []
    for path in args.configs:
        t0 = time.time()
        runs = [final_numbers(load_config(path, [*args.overrides, f"seed={seed}"]), quiet=not args.verbose)
                for seed in seeds]
        table.append((path, summarize_runs(runs), time.time() - t0))
    width = max(len(p) for p, _, _ in table)
    print(f"{'config':<{width}} | " + " | ".join(f"{c:>16}" for c in COLUMNS) + " | time")
    for path, summary, seconds in table:
        cells = " | ".join(f"{m:8.4f} ± {s:<5.3f}" for m, s in (summary[c] for c in COLUMNS))
        print(f"{path:<{width}} | {cells} | {seconds:.0f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

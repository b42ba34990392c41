"""Train one config over several seeds and summarize the best validation loss of each.

    python sweep.py --config configs/experiment.toml --seeds 0 1 2 [--set key=value ...]
"""

import argparse
import statistics
import sys
import time

import torch

from train import run
from nirgrain.config import load_config


def sweep(config, seeds, overrides=()):
    rows = []
    for seed in seeds:
        cfg = load_config(config, [*overrides, f"seed={seed}", f"output.dir=runs/sweep/seed{seed}"])
        t0 = time.time()
        _, history = run(cfg, echo=False)
        best = min(history, key=lambda h: h["val"]["loss"])
        rows.append({"seed": seed, "best_epoch": best["epoch"], "val_loss": best["val"]["loss"],
                     "val_acc": best["val"]["acc"], "final_train_loss": history[-1]["train"]["loss"],
                     "seconds": time.time() - t0})
    return rows


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=None)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    rows = sweep(args.config, args.seeds, args.overrides)
    for r in rows:
        print(f"seed {r['seed']}: best epoch {r['best_epoch']} val loss {r['val_loss']:.4f} acc {r['val_acc']:.3f} "
              f"| final train loss {r['final_train_loss']:.4f} | {r['seconds']:.1f}s")
    losses = [r["val_loss"] for r in rows]
    spread = statistics.stdev(losses) if len(losses) > 1 else 0.0
    print(f"mean best val loss {statistics.mean(losses):.4f} +- {spread:.4f} over {len(rows)} seeds")


if __name__ == "__main__":
    main(sys.argv[1:])

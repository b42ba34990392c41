"""Post-hoc calibration of the variance head: one scale factor s so that var * s fits held-out rows.

    python calibrate.py runs/mlp-per-building [--holdout 0.2]

For a Gaussian forecaster the maximum-likelihood s is the mean squared standardized residual;
we fit it on the last `holdout` share of each building's rows and report coverage before/after.
"""

import argparse
import json
import sys
from pathlib import Path

import torch

from data import load_shards
from evaluate import load_run
from metrics import coverage, z_spread


@torch.no_grad()
def predictions(model, pipeline, target, shards, holdout, batch_size=64):
    """(mu, var, y) in kWh over the held-out tail of every building, one building per batch."""
    mus, vars_, ys = [], [], []
    for shard in shards:
        start = int(len(shard["x"]) * (1 - holdout))
        for i in range(start, len(shard["x"]) - batch_size + 1, batch_size):
            mu, var = model(pipeline(shard["x"][i:i + batch_size]))
            mus.append(target.inverse(mu))
            vars_.append(target.inverse_var(var))
            ys.append(shard["y"][i:i + batch_size])
    return torch.cat(mus), torch.cat(vars_), torch.cat(ys)


def fit_scale(mu, var, y):
    """ML estimate of s in N(mu, s * var)."""
    return (((y - mu) ** 2) / var).mean().item()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--holdout", type=float, default=0.2)
    parser.add_argument("--data-dir", default="data")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    shards = load_shards(args.data_dir)
    cfg, model, pipeline, target = load_run(args.run_dir, shards)
    mu, var, y = predictions(model, pipeline, target, shards, args.holdout)
    s = fit_scale(mu, var, y)
    print(f"{cfg.name}: {len(y)} held-out rows")
    print(f"  before: cov90 {coverage(mu, var, y):.3f} | z std {z_spread(mu, var, y):.3f}")
    print(f"  after (var x {s:.3f}): cov90 {coverage(mu, var * s, y):.3f} | z std {z_spread(mu, var * s, y):.3f}")
    (Path(args.run_dir) / "calibration.json").write_text(json.dumps({"variance_scale": s, "holdout": args.holdout}))


if __name__ == "__main__":
    main(sys.argv[1:])

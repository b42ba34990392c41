"""Leave-one-site-out backtest: train on five sites, score the held-out week of the sixth, for every site.

    python backtest.py --config configs/fleet.toml [--set ...]

Tells us how the forecaster does on a site it has never seen (the next one we onboard).
"""

import argparse
import statistics
import sys

import torch

from config import load_config
from data import batches_per_epoch, load_sites, split_holdout
from export import evaluate_sites
from features import n_features, output_scale
from models import build_model
from normalize import build_standardizer, make_pipeline
from trainer import Trainer


def fold(cfg, train_sites, test_site):
    torch.manual_seed(cfg.train.seed)
    standardizer = build_standardizer(cfg.features, train_sites)
    pipeline = make_pipeline(cfg.features, standardizer)
    model = build_model(cfg.model, n_features(cfg.features.cyclic), output_scale(train_sites))
    total = cfg.train.epochs * batches_per_epoch(train_sites, cfg.train.batch_size)
    Trainer(cfg, model, pipeline, [], total).fit(train_sites)
    return evaluate_sites(model, pipeline, [test_site])[test_site["name"]]


def backtest(cfg, sites):
    train_sites, holdout = split_holdout(sites, cfg.data.holdout_days)
    results = {}
    for k, test in enumerate(holdout):
        results[test["name"]] = fold(cfg, train_sites[:k] + train_sites[k + 1:], test)
    maes = [r["mae_kwh"] for r in results.values()]
    return results, {"mean_mae_kwh": statistics.mean(maes), "fold_std_kwh": statistics.stdev(maes),
                     "median_mae_kwh": statistics.median(maes)}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = load_config(args.config, args.overrides)
    results, overall = backtest(cfg, load_sites(cfg.data.data_dir, cfg.data.pattern, tuple(cfg.data.sites)))
    for name, r in results.items():
        print(f"{name} never seen: mae {r['mae_kwh']:.2f} kWh | wape {r['wape']:.1%}")
    print(f"mean {overall['mean_mae_kwh']:.2f} kWh, spread {overall['fold_std_kwh']:.2f} over {len(results)} folds")


if __name__ == "__main__":
    main(sys.argv[1:])

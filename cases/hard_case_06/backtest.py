"""Leave-one-building-out backtest: train on five buildings, score the sixth, for every building.

    python backtest.py --config configs/base.toml [--set ...]

Reports the held-out MAE per building and the mean and spread over folds; it tells us how the
forecaster does on a building it has never seen (the next one we onboard).
"""

import argparse
import statistics
import sys

import torch

from config import load_config
from data import batches_per_epoch, load_shards
from export import evaluate_shards
from features import TargetScaler, n_features
from models import build_model
from normalize import build_normalizer, make_pipeline
from trainer import Trainer


def fold(cfg, train_shards, test_shard):
    torch.manual_seed(cfg.train.seed)
    target = TargetScaler(torch.cat([s["y"] for s in train_shards]))
    normalizer = build_normalizer(cfg.features, train_shards)
    pipeline = make_pipeline(cfg.features, normalizer)
    model = build_model(cfg.model, n_features(cfg.features.cyclic_hour))
    total = cfg.train.epochs * batches_per_epoch(train_shards, cfg.train.batch_size)
    Trainer(cfg, model, pipeline, target, []).fit(train_shards, total)
    return evaluate_shards(model, pipeline, target, [test_shard])[test_shard["name"]]


def backtest(cfg, shards):
    results = {}
    for k, test in enumerate(shards):
        results[test["name"]] = fold(cfg, shards[:k] + shards[k + 1:], test)
    maes = torch.tensor([r["mae_kwh"] for r in results.values()])
    return results, {"mean_mae_kwh": maes.mean().item(), "fold_std_kwh": maes.std().item(),
                     "median_mae_kwh": statistics.median(maes.tolist())}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = load_config(args.config, args.overrides)
    results, overall = backtest(cfg, load_shards(cfg.data.data_dir, cfg.data.pattern))
    for name, r in results.items():
        print(f"{name} held out: mae {r['mae_kwh']:.2f} kWh | cov90 {r['coverage90']:.2f}")
    print(f"mean {overall['mean_mae_kwh']:.2f} kWh, spread {overall['fold_std_kwh']:.2f} over {len(results)} folds")


if __name__ == "__main__":
    main(sys.argv[1:])

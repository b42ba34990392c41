"""Train a next-hour load forecaster.

    python train.py --config configs/experiment.toml [--set section.key=value ...]
"""

import argparse
import sys
import time

import torch

from callbacks import ConsoleLogger, EarlyStopping, EpochSummary, History, NonFiniteLossGuard
from checks import check_shards, report_outliers
from checks import summary as summary_lines
from config import load_config
from data import batches_per_epoch, load_shards
from export import evaluate_shards, export_run
from features import TargetScaler, n_features
from models import build_model, count_parameters
from normalize import build_normalizer, make_pipeline
from trainer import Trainer


def run(cfg, shards=None, verbose=False):
    """Train per `cfg` on `shards` (default: the export in cfg.data); returns (model, history rows)."""
    torch.manual_seed(cfg.train.seed)
    if shards is None:
        shards = load_shards(cfg.data.data_dir, cfg.data.pattern)
        if cfg.data.check:
            check_shards(shards)
            for line in report_outliers(shards, cfg.data.outlier_factor):
                print(line, flush=True)
        if verbose:
            for line in summary_lines(shards):
                print(line, flush=True)
    target_scaler = TargetScaler(torch.cat([s["y"] for s in shards]))
    normalizer = build_normalizer(cfg.features, shards)
    pipeline = make_pipeline(cfg.features, normalizer)
    model = build_model(cfg.model, n_features(cfg.features.cyclic_hour))
    history, summary = History(), EpochSummary(verbose)
    callbacks = [NonFiniteLossGuard(), history, summary, ConsoleLogger(cfg.train.log_every),
                 EarlyStopping(summary, cfg.train.patience)]
    total = cfg.train.epochs * batches_per_epoch(shards, cfg.train.batch_size)
    print(f"{cfg.name}: {cfg.model.name} ({count_parameters(model)} params), {cfg.features.normalization} "
          f"normalization, {len(shards)} buildings, {total} steps", flush=True)
    Trainer(cfg, model, pipeline, target_scaler, callbacks).fit(shards, total)
    if cfg.train.export_dir:
        report = evaluate_shards(model, pipeline, target_scaler, shards)
        export_run(cfg.train.export_dir, model, cfg, normalizer, target_scaler, report, summary.epochs)
    return model, history.rows


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--verbose", action="store_true", help="print the data summary and per-epoch means")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = load_config(args.config, args.overrides)
    t0 = time.time()
    _, history = run(cfg, verbose=args.verbose)
    last = history[-cfg.train.final_window:]
    print(f"final mae {sum(h['mae_kwh'] for h in last) / len(last):.2f} kWh (last {len(last)} steps)")
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

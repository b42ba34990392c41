"""Train a next-hour energy forecaster for the charging sites.

    python train.py --config configs/fleet.toml [--set section.key=value ...]
"""

import argparse
import dataclasses
import sys
import time

import torch

from callbacks import ConsoleLogger, EarlyStopping, EpochSummary, History, NonFiniteLossGuard
from checks import check_sites, report_zero_readings
from checks import summary as summary_lines
from config import load_config
from data import batches_per_epoch, load_sites, split_holdout
from export import evaluate_sites, export_run
from features import n_features, output_scale
from models import build_model, count_parameters
from normalize import build_standardizer, make_pipeline
from trainer import Trainer


def run(cfg, sites=None, verbose=False):
    """Train per `cfg` on `sites` (default: the export in cfg.data); returns (model, history, holdout report)."""
    torch.manual_seed(cfg.train.seed)
    if sites is None:
        sites = load_sites(cfg.data.data_dir, cfg.data.pattern, tuple(cfg.data.sites))
        if cfg.data.check:
            check_sites(sites)
            for line in report_zero_readings(sites, cfg.data.zero_warn_share):
                print(line, flush=True)
        if verbose:
            for line in summary_lines(sites):
                print(line, flush=True)
    train_sites, holdout = split_holdout(sites, cfg.data.holdout_days)
    scale = output_scale(train_sites)
    standardizer = build_standardizer(cfg.features, train_sites)
    pipeline = make_pipeline(cfg.features, standardizer)
    model = build_model(cfg.model, n_features(cfg.features.cyclic), scale)
    history, summary = History(), EpochSummary(verbose)
    callbacks = [NonFiniteLossGuard(), history, summary, ConsoleLogger(cfg.train.log_every),
                 EarlyStopping(summary, cfg.train.patience)]
    total = cfg.train.epochs * batches_per_epoch(train_sites, cfg.train.batch_size)
    print(f"{cfg.name}: {cfg.model.name} ({count_parameters(model)} params), {len(sites)} sites, "
          f"{total} steps, {cfg.data.holdout_days} days held out", flush=True)
    trainer = Trainer(cfg, model, pipeline, callbacks, total)
    trainer.fit(train_sites)
    report = evaluate_sites(model, pipeline, holdout)
    if cfg.train.export_dir:
        export_run(cfg.train.export_dir, model, cfg, standardizer, scale, report, summary.epochs,
                   dataclasses.asdict(trainer.updater.stats))
    return model, history.rows, report


def print_report(report):
    print(f"held-out week    {'mae kWh':>8} {'wape':>7} {'bias kWh':>9} {'deviance':>9}")
    for name, m in report.items():
        print(f"  {name:<14} {m['mae_kwh']:8.2f} {m['wape']:7.1%} {m['bias_kwh']:9.2f} {m['poisson_dev']:9.3f}")
    rows = sum(m["rows"] for m in report.values())
    overall = sum(m["mae_kwh"] * m["rows"] for m in report.values()) / rows
    print(f"  {'all sites':<14} {overall:8.2f}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--verbose", action="store_true", help="print the data summary and per-epoch means")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = load_config(args.config, args.overrides)
    t0 = time.time()
    _, _, report = run(cfg, verbose=args.verbose)
    print_report(report)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

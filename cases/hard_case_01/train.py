"""Train an activity classifier.

    python train.py --config configs/experiment.toml [--set section.key=value ...]

Without ``--config`` the defaults of ``har/config.py`` are used (``configs/base.toml`` spells them out).
"""

import argparse
import json
import sys
from pathlib import Path
import time

import torch

from har.calibration import calibrate
from har.callbacks import BestCheckpoint, default_callbacks
from har.config import describe, load_config, to_dict
from har.data import BatchStream, build_splits
from har.evaluate import evaluate, predict
from har.export import export
from har.logutil import format_summary
from har.metrics import max_entropy
from har.models import build_model, count_parameters
from har.optim import build_optimizer, build_scheduler
from har.report import write_report
from har.trainer import Trainer


def train(cfg):
    """Train with ``cfg``; returns (model, history). Calibrates and exports when the config asks to."""
    torch.manual_seed(cfg.train.seed)
    splits = build_splits(cfg.data, seed=cfg.train.seed)
    model = build_model(cfg.model, cfg.data)
    optimizer = build_optimizer(model, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.optim, cfg.train.steps)
    stream = BatchStream(splits.x_train, splits.y_train, cfg.data, seed=cfg.train.seed)
    callbacks = default_callbacks(cfg, max_entropy(cfg.data.n_classes))
    print(f"run {cfg.name}: model {cfg.model.name} ({count_parameters(model):,} parameters), "
          f"{len(splits.y_train)} train / {len(splits.y_val)} val windows", flush=True)
    out_dir = Path(cfg.train.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.json").write_text(json.dumps(to_dict(cfg), indent=2))
    trainer = Trainer(model, optimizer, scheduler, cfg, callbacks)
    history = trainer.fit(stream, splits)

    best = next(cb for cb in callbacks if isinstance(cb, BestCheckpoint))
    final = evaluate(model, splits.x_val, splits.y_val, cfg.data.n_classes)
    print(format_summary(best.best_step, best.best_acc, final))
    temperature = 1.0
    if cfg.export.calibrate:
        fit = calibrate(predict(model, splits.x_val), splits.y_val)
        temperature = fit["temperature"]
        print(f"calibration: temperature {temperature:.3f} | val nll {fit['nll_before']:.4f} -> {fit['nll_after']:.4f}")
    if cfg.export.enabled:
        path = export(model, splits.standardizer, cfg, temperature, metrics=final)
        print(f"exported {path}")
        write_report(model, splits, cfg, temperature, history)
    return model, history


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one config value, e.g. --set optim.lr=0.1 (repeatable)")
    parser.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    return parser.parse_args(argv)


def config_from_args(argv):
    """The run's Config from a command line: the ``--config`` file, then the ``--set`` overrides."""
    args = parse_args(argv)
    return load_config(args.config, args.overrides)


def main(argv):
    args = parse_args(argv)
    torch.set_num_threads(1)
    cfg = config_from_args(argv)
    if args.print_config:
        print(describe(cfg))
        return
    t0 = time.time()
    train(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

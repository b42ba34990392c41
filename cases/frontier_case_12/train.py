"""Train the grain-variety classifier.

    python train.py --config configs/experiment.toml [--set optim.lr=3e-4 --set seed=1 ...]
"""

import argparse
import sys
import time
from pathlib import Path

import torch

from nirgrain.config import load_config
from nirgrain.data import CLASSES, build_datasets
from nirgrain.data.pipeline import class_balance
from nirgrain.engine.callbacks import default_callbacks
from nirgrain.engine.trainer import Trainer
from nirgrain.logging_utils import RunLogger
from nirgrain.models import build_model, count_parameters


def make_config(path=None, overrides=()):
    """The run's configuration: a config file (or the built-in defaults) plus --set overrides."""
    return load_config(path, overrides)


def run(cfg, echo=True):
    """Train with ``cfg``; returns the model (best epoch's weights loaded) and the per-epoch history."""
    torch.manual_seed(cfg.seed)
    torch.use_deterministic_algorithms(cfg.trainer.deterministic)
    out_dir = Path(cfg.output.dir)
    logger = RunLogger(out_dir, cfg.output.metrics, echo=echo)
    data = build_datasets(cfg)
    model = build_model(cfg, len(CLASSES))
    logger.info(f"run {cfg.name} (seed {cfg.seed}) | model {cfg.model.name}, {count_parameters(model):,} parameters")
    logger.info(f"train: {data.train_loader.describe()}")
    logger.info(f"val:   {data.val_loader.describe()} | eval {cfg.eval.mode}")
    if not cfg.trainer.deterministic:
        logger.info("note: torch deterministic algorithms are off (trainer.deterministic = false)")
    logger.record("start", config=cfg.to_dict(), val_balance=class_balance(data.val_y))
    total_steps = cfg.trainer.epochs * len(data.train_loader)
    callbacks = default_callbacks(cfg, total_steps, out_dir / cfg.output.checkpoint)
    trainer = Trainer(cfg, model, data, callbacks, logger)
    history = trainer.fit()
    return model, history


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=None, help="a TOML file under configs/ (defaults: built-in)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override one config value, e.g. --set optim.lr=3e-4 (repeatable)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = make_config(args.config, args.overrides)
    t0 = time.time()
    run(cfg)
    print(f"saved {Path(cfg.output.dir) / cfg.output.checkpoint}; done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

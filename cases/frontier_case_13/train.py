"""Train the wafer-map defect classifier.

    python train.py --config configs/cnn.toml [--set section.key=value ...]
"""

import argparse
import random
import sys
import time

import numpy as np
import torch

from callbacks import BestWeights, Exporter, ProgressPrinter
from checks import check_export
from config import load_config
from metrics import format_recalls
from models import build_model
from models.cnn import count_params
from preprocess import Standardizer, prepare
from trainer import Trainer
from wafers import last_tests, load_export


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def run(cfg):
    """Train cfg; returns (model, history, report) where report holds the validation metrics of the
    kept weights (overall and per class)."""
    started = time.time()
    seed_everything(cfg.train.seed)
    train, val, classes = load_export(cfg.data.path)
    for w in check_export(train, val, classes):
        print(f"warning: {w}")
    train = last_tests(train)
    train_x, val_x = prepare(train, cfg.data.grid), prepare(val, cfg.data.grid)
    scale = Standardizer(train_x)
    train_x, val_x = scale(train_x), scale(val_x)
    model = build_model(cfg.model, len(classes), side=train_x.shape[-1])
    print(f"{cfg.name}: {cfg.model.name} ({count_params(model)} params), {len(train)} training maps, "
          f"{len(val)} validation maps, {len(classes)} classes")
    best = BestWeights()
    callbacks = [ProgressPrinter(cfg.train.log_every), best]
    if cfg.train.export_dir:
        callbacks.append(Exporter(cfg.train.export_dir))
    trainer = Trainer(cfg, model, train_x, train.labels, val_x, val.labels, len(classes), callbacks)
    history = trainer.fit()
    final, _ = trainer.evaluate()
    report = {"best_epoch": best.epoch, "val_loss": final["loss"], "val_acc": final["acc"],
              "recall": dict(zip(classes, final["recall"])), "confusion": final["confusion"], "classes": classes}
    print(f"kept epoch {best.epoch}: val loss {final['loss']:.3f} acc {final['acc']:.3f}")
    print("val recall  " + format_recalls(classes, final["recall"]))
    print(f"done in {time.time() - started:.1f}s")
    return model, history, report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/cnn.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    run(load_config(args.config, args.set))


if __name__ == "__main__":
    sys.exit(main())

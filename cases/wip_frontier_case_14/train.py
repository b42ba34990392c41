"""Train a pump-fault classifier from a TOML config.

    python train.py --config configs/plant.toml [--set section.key=value ...]
"""

import argparse
import time
from pathlib import Path

import torch

from pumpwatch.config import load_config
from pumpwatch.data import CLASSES, build_splits
from pumpwatch.data.augment import build_augment
from pumpwatch.engine.callbacks import BestCheckpoint, ConsoleLog, EarlyStopping, MetricsFile, save_checkpoint
from pumpwatch.engine.resume import SaveLast, restore
from pumpwatch.engine.trainer import Trainer, seed_everything
from pumpwatch.models import build_model, count_parameters


def make_config(path=None, overrides=()):
    return load_config(path, list(overrides))


def run(cfg, echo=True, resume=False):
    """Train with ``cfg``; returns the history, the best epoch's row and the restored model."""
    t0 = time.time()
    torch.set_num_threads(1)
    seed_everything(cfg.seed)
    train, val, scaler = build_splits(cfg)
    n_bins, n_frames = train.x.shape[1], train.x.shape[2]
    model = build_model(cfg, n_bins, len(CLASSES))
    augment = build_augment(cfg)
    best = BestCheckpoint(cfg.eval.select)
    out = Path(cfg.output.dir)
    callbacks = [ConsoleLog(echo), MetricsFile(out / cfg.output.metrics), best,
                 EarlyStopping(cfg.trainer.patience, cfg.eval.select), SaveLast(out, cfg.trainer.save_last or resume)]
    trainer = Trainer(cfg, model, train, val, augment, callbacks, n_classes=len(CLASSES))
    if echo:
        print(f"run {cfg.name} (seed {cfg.seed}) | model {cfg.model.name}, {count_parameters(model):,} parameters")
        print(f"train: {len(train.y)} recordings -> {n_bins} channels x {n_frames} frames, "
              f"{trainer.steps_per_epoch} batches of {cfg.data.batch_size}, augment {augment!r}")
        print(f"val:   {len(val.y)} recordings, evaluated after every epoch, best by {cfg.eval.select}")
        print(f"optim: AdamW lr {cfg.optim.lr:g} wd {cfg.optim.weight_decay:g}, label smoothing "
              f"{cfg.optim.label_smoothing:g}, {cfg.trainer.epochs} epochs, warmup {cfg.optim.warmup_epochs}, "
              f"cosine to {cfg.optim.min_lr_ratio:g}x")
    start = restore(trainer, out) if resume else 1
    if echo and start > 1:
        print(f"resuming {out} at epoch {start}")
    history = trainer.fit(start)
    best.restore(model)
    row = best.best
    path = out / cfg.output.checkpoint
    save_checkpoint(path, model, cfg, scaler.state(), {k: v for k, v in row.items() if k != "confusion"})
    if echo:
        print(f"best epoch {row['epoch']} (by {cfg.eval.select}): val loss {row['val_loss']:.4f} "
              f"acc {row['val_acc']:.3f} f1 {row['val_f1']:.3f}")
        print("  recall: " + " ".join(f"{c} {r:.3f}" for c, r in zip(CLASSES, row["val_recall"])))
        print(f"saved {path}; done in {time.time() - t0:.1f}s")
    return {"history": history, "best": row, "model": model, "scaler": scaler.state()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default=None)
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--resume", action="store_true", help="continue from <output.dir>/last.pt")
    args = ap.parse_args(argv)
    run(make_config(args.config, args.overrides), resume=args.resume)


if __name__ == "__main__":
    main()

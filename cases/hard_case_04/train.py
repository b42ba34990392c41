"""Train a gesture classifier.

Usage: python train.py [--config configs/NAME.toml] [--set section.key=value ...] [--metrics PATH]
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch

from callbacks import BestWeights, ConsoleLogger, EarlyStopping, GradClip, History, LRSchedule, MetricsFile
from config import describe, load_config, to_toml
from export import export
from loader import padding_fraction, train_batches
from models import build_model, count_parameters
from synth import N_CHANNELS, N_CLASSES, class_balance, make_dataset
from trainer import Trainer, make_optimizer
from transforms import Augment, channel_stats


def run_experiment(cfg, metrics_path=None):
    """Train the model ``cfg`` describes on its data; returns (model, history rows)."""
    torch.manual_seed(cfg.seed)
    d = cfg.data
    xs_train, y_train = make_dataset(d.n_train, seed=cfg.seed, min_frames=d.min_frames, max_frames=d.max_frames)
    xs_val, y_val = make_dataset(d.n_val, seed=cfg.seed + 100, min_frames=d.min_frames, max_frames=d.max_frames)
    model = build_model(cfg.model, N_CHANNELS, N_CLASSES)
    model.inputs.set_stats(channel_stats(xs_train))
    optimizer = make_optimizer(model, cfg.optim)
    stream = train_batches(xs_train, y_train, cfg.optim.batch_size, seed=cfg.seed, bucket=d.bucket_by_length)
    augment = Augment(d.jitter, d.scale_range, seed=cfg.seed + 1)
    balance = ", ".join(f"{p:.2f}" for p in class_balance(y_train))
    header = [f"experiment {cfg.name}: {cfg.model.kind}, {count_parameters(model)} parameters",
              *(f"  {line}" for line in describe(cfg)),
              f"{len(xs_train)} train / {len(xs_val)} val recordings, class shares {balance}, "
              f"{100 * padding_fraction(xs_train, cfg.optim.batch_size, cfg.seed, d.bucket_by_length):.0f}% padding"]
    history = History()
    callbacks = [LRSchedule(cfg.optim.lr, cfg.optim.steps, cfg.optim.warmup_steps, cfg.optim.schedule)]
    if cfg.optim.clip_norm > 0:
        callbacks.append(GradClip(cfg.optim.clip_norm))
    callbacks += [history, ConsoleLogger()]
    if cfg.eval.patience > 0:
        callbacks.append(EarlyStopping(cfg.eval.patience))
    if cfg.eval.keep_best:
        callbacks.append(BestWeights())
    if metrics_path:
        callbacks.append(MetricsFile(metrics_path))
    trainer = Trainer(model, optimizer, stream, (xs_val, y_val), cfg, N_CLASSES,
                      augment=augment if augment.active else None, callbacks=callbacks, header=header)
    trainer.fit()
    final = history.rows[-1]
    print(f"final: val macro-F1 {final['val_f1']:.3f}, ECE {final['val_ece']:.3f} "
          f"(chance loss {math.log(N_CLASSES):.3f}, acc {1 / N_CLASSES:.2f})")
    if cfg.export.path:
        for path in export(model, cfg, xs_val[0], cfg.export.path):
            print(f"exported {path}")
    return model, history.rows


def save_run(out_dir, cfg, rows, seconds):
    """The run's resolved config and logged rows, so a run can be compared or re-launched later."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    record = {"config": cfg.to_dict(), "history": rows, "seconds": round(seconds, 2),
              "torch": torch.__version__}
    (out / "run.json").write_text(json.dumps(record, indent=1))
    return out / "run.json"


def main(argv):
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--metrics", default=None, help="write one JSON line per logged step here")
    parser.add_argument("--out", default=None, help="directory for run.json (resolved config + history)")
    parser.add_argument("--print-config", action="store_true", help="print the resolved config as TOML and exit")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    if args.print_config:
        print(to_toml(cfg), end="")
        return
    t0 = time.time()
    _, rows = run_experiment(cfg, args.metrics)
    seconds = time.time() - t0
    if args.out:
        print(f"wrote {save_run(args.out, cfg, rows, seconds)}")
    print(f"done in {seconds:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

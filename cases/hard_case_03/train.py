"""Train a glyph encoder with a neighbour objective (prototypes or a memory bank).

Usage: python train.py [--config configs/NAME.toml] [--set section.key=value ...] [--metrics PATH]
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader

from callbacks import BestEncoder, ClassifierRefresh, ConsoleLogger, History, MetricsFile, Warmup
from config import describe, load_config, to_toml
from datasets import ShiftAugmented
from encoders import build_encoder, count_parameters
from export import export
from memory import build_bank
from metrics import most_confused
from normalize import Normalizer
from prototypes import build_prototypes
from samplers import ClassBalancedBatches
from splits import build_splits, split_report
from trainer import Trainer, predict


def forever(loader):
    while True:
        yield from loader


def training_stream(train_set, cfg):
    """Endless training batches: class-balanced (P x K) or uniformly shuffled."""
    view = ShiftAugmented(train_set, seed=cfg.seed + 1) if cfg.data.augment else train_set
    if cfg.data.balanced_batches:
        per_class = 4
        sampler = ClassBalancedBatches(train_set, cfg.optim.batch_size // per_class, per_class, seed=cfg.seed)
        return iter(DataLoader(view, batch_sampler=sampler))
    loader = DataLoader(view, batch_size=cfg.optim.batch_size, shuffle=True, drop_last=True,
                        generator=torch.Generator().manual_seed(cfg.seed))
    return forever(loader)


def classifier_builder(cfg, norm, train_set):
    n_classes = cfg.data.n_classes
    if cfg.classifier.kind == "nca":
        return lambda encoder: build_bank(encoder, norm, train_set, n_classes)
    if cfg.classifier.kind == "prototype":
        return lambda encoder: build_prototypes(encoder, norm, train_set, n_classes)
    raise ValueError(f"classifier.kind: unknown classifier {cfg.classifier.kind!r} (prototype, nca)")


def run_experiment(cfg, metrics_path=None):
    """Train the encoder ``cfg`` describes; returns (encoder, normalizer, classifier, history rows)."""
    torch.manual_seed(cfg.seed)
    train_set, val_set = build_splits(cfg)
    val_loader = DataLoader(val_set, batch_size=cfg.eval.batch_size)
    norm = Normalizer().fit(DataLoader(train_set, batch_size=256))
    encoder = build_encoder(cfg.model)
    optimizer = torch.optim.Adam(encoder.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    n = cfg.data.n_classes
    header = [f"experiment {cfg.name}: {cfg.model.encoder} encoder ({count_parameters(encoder)} parameters), "
              f"{cfg.classifier.kind} classifier",
              *(f"  {line}" for line in describe(cfg)),
              *split_report(train_set, val_set, n),
              f"chance: loss {math.log(n):.3f}, acc {1 / n:.3f}"]
    history = History()
    build = classifier_builder(cfg, norm, train_set)
    callbacks = [Warmup(cfg.optim.lr, cfg.optim.warmup_steps), ClassifierRefresh(build, cfg.classifier.refresh_every),
                 history, ConsoleLogger()]
    if cfg.eval.keep_best:
        callbacks.append(BestEncoder(build))
    if metrics_path:
        callbacks.append(MetricsFile(metrics_path))
    trainer = Trainer(encoder, norm, optimizer, training_stream(train_set, cfg), val_loader, cfg,
                      callbacks=callbacks, header=header)
    trainer.fit()
    final = history.rows[-1]
    print(f"final: val ECE {final['val_ece']:.3f}")
    if cfg.eval.report_confusions:
        logp, labels = predict(encoder, norm, trainer.classifier, val_loader, cfg.classifier.tau)
        for true, pred, count in most_confused(logp, labels, cfg.eval.report_confusions):
            print(f"  class {true:3d} read as {pred:3d}: {count}x")
    if cfg.export.path:
        path, size = export(encoder, norm, train_set, n, cfg.classifier.tau, cfg.export.path)
        print(f"exported {path} (bank of {size} glyphs)")
    return encoder, norm, trainer.classifier, history.rows


def save_run(out_dir, cfg, rows, seconds):
    """The run's resolved config and logged rows, so a run can be compared or re-launched later."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    record = {"config": cfg.to_dict(), "history": rows, "seconds": round(seconds, 2), "torch": torch.__version__}
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
    *_, rows = run_experiment(cfg, args.metrics)
    seconds = time.time() - t0
    if args.out:
        print(f"wrote {save_run(args.out, cfg, rows, seconds)}")
    print(f"done in {seconds:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

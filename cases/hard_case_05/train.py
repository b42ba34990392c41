"""Train a character-level language model.

    python train.py --config configs/experiment.toml [--set section.key=value ...]
"""

import argparse
import sys
import time

import torch

from callbacks import ClipStats, ConsoleLogger, EarlyStopping, GradHealth, History, JsonlWriter
from config import load_config
from dataset import build_datasets
from export import export_run
from models import build_model, count_parameters
from monitor import build_monitors
from tokenizer import CharTokenizer
from trainer import Trainer


def build_callbacks(cfg):
    """Monitors first (they fill the row), then the consumers of the row."""
    history = History()
    callbacks = [GradHealth(), *build_monitors(cfg.train.monitors), ClipStats(cfg.optim.grad_clip), history,
                 ConsoleLogger()]
    if cfg.train.metrics_file:
        callbacks.append(JsonlWriter(cfg.train.metrics_file))
    callbacks.append(EarlyStopping(cfg.train.patience))
    return callbacks, history


def run(cfg):
    """Train per `cfg`; returns (model, history rows). Exports when train.export_dir is set."""
    torch.manual_seed(cfg.train.seed)
    tokenizer = CharTokenizer.from_alphabet()
    datasets = build_datasets(cfg.data, tokenizer, seed=cfg.train.seed)
    model = build_model(cfg.model, tokenizer.vocab_size, cfg.data.block_size)
    callbacks, history = build_callbacks(cfg)
    n_train, n_val = datasets["n_words"]
    print(f"{cfg.name}: {cfg.model.name} ({count_parameters(model)} params), {cfg.optim.name} lr {cfg.optim.lr:g}, "
          f"{n_train} train / {n_val} val words, {len(datasets['train'][0])} windows", flush=True)
    Trainer(cfg, model, datasets, callbacks).fit()
    if cfg.train.export_dir:
        report = export_run(cfg.train.export_dir, model, tokenizer, cfg, datasets, cfg.train.samples)
        print(f"exported to {cfg.train.export_dir} (val loss {report['val']['loss']:.4f}, "
              f"acc {report['val']['acc']:.3f})", flush=True)
    return model, history.rows


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg = load_config(args.config, args.overrides)
    t0 = time.time()
    run(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

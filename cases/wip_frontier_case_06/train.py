"""Train the ticket router: python train.py --config configs/router.toml [--set train.seed=1 ...]"""

import sys
from dataclasses import dataclass
from pathlib import Path

import torch

from callbacks import Checkpoint, ConsoleLogger, EarlyStopping, MetricsFile, PeriodicEval
from checks import check_records, rare_queues
from config import cli_config, save_config
from dataset import QUEUES, load_splits
from metrics import format_report
from model import build_model, count_parameters
from trainer import Trainer


@dataclass
class RunResult:
    model: torch.nn.Module
    vocab: object
    summary: dict
    predictions: list


def run(cfg):
    torch.manual_seed(cfg.train.seed)
    vocab, train_set, val_set = load_splits(cfg.data)
    check_records(train_set.records, val_set.records)
    model = build_model(cfg.model, len(vocab), len(QUEUES), cfg.data.max_len, train_set.activity.shape[1])
    print(f"{cfg.name}: {len(train_set)} train / {len(val_set)} val tickets, vocab {len(vocab)}, "
          f"{count_parameters(model)} parameters")
    callbacks = [ConsoleLogger(cfg.train.log_every)]
    if cfg.train.eval_every:
        evaluator = PeriodicEval(cfg.train.eval_every)
        callbacks.append(evaluator)
        if cfg.train.patience:
            callbacks.append(EarlyStopping(evaluator, cfg.train.patience))
    if cfg.train.metrics_file:
        callbacks.append(MetricsFile(cfg.train.metrics_file, cfg.train.log_every))
    if cfg.train.out_dir:
        callbacks.append(Checkpoint(cfg.train.out_dir))
        Path(cfg.train.out_dir).mkdir(parents=True, exist_ok=True)
        save_config(cfg, Path(cfg.train.out_dir) / "config.json")
    trainer = Trainer(cfg, model, vocab, train_set, val_set, callbacks)
    trainer.fit()
    preds = trainer.predict(val_set)
    summary = trainer.evaluate()
    print(format_report(summary, rare=rare_queues(train_set.records)))
    predictions = [(r["id"], QUEUES[int(p)]) for r, p in zip(val_set.records, preds)]
    return RunResult(model, vocab, summary, predictions)


def main(argv=None):
    torch.set_num_threads(1)
    cfg, rest = cli_config(argv)
    if rest:
        raise SystemExit(f"unknown arguments: {rest}")
    run(cfg)


if __name__ == "__main__":
    main(sys.argv[1:])

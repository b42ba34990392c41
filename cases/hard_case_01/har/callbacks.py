"""Trainer callbacks: console log, metrics file, checkpoints, early stopping.

The trainer calls ``on_train_start``, ``on_log(row)`` at every logged step and ``on_train_end``;
a callback may set ``trainer.should_stop`` to end the run early.
"""

import json
import math
from pathlib import Path

import torch


class Callback:
    def on_train_start(self, trainer):
        pass

    def on_log(self, trainer, row):
        pass

    def on_train_end(self, trainer):
        pass


class ConsoleLogger(Callback):
    """One line per logged step: ``step N | loss x | lr y | grad z | val acc ... | entropy ...``."""

    def __init__(self, max_entropy):
        self.max_entropy = max_entropy

    def on_log(self, trainer, row):
        print(f"step {row['step']:4d} | loss {row['loss']:.4f} | lr {row['lr']:.4f} | grad {row['grad_norm']:.2e} | "
              f"val acc {row['val_acc']:.3f} | f1 {row['f1']:.3f} | ece {row['ece']:.3f} | "
              f"entropy {row['entropy']:.3f} (max {self.max_entropy:.3f})", flush=True)


class MetricsFile(Callback):
    """Appends every logged row to ``metrics.jsonl`` in the run folder."""

    def __init__(self, out_dir):
        self.path = Path(out_dir) / "metrics.jsonl"

    def on_train_start(self, trainer):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")

    def on_log(self, trainer, row):
        with self.path.open("a") as fh:
            fh.write(json.dumps(row) + "\n")


class BestCheckpoint(Callback):
    """Keeps the weights with the best validation accuracy (in memory, and on disk if enabled)."""

    def __init__(self, out_dir, save=True):
        self.path = Path(out_dir) / "best.pt"
        self.save = save
        self.best_acc = -math.inf
        self.best_step = None
        self.best_state = None

    def on_log(self, trainer, row):
        if row["val_acc"] > self.best_acc:
            self.best_acc, self.best_step = row["val_acc"], row["step"]
            self.best_state = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
            if self.save:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                torch.save({"step": row["step"], "model": self.best_state}, self.path)


class EarlyStopping(Callback):
    """Stops when validation accuracy has not improved for ``patience`` logged steps (0 = never)."""

    def __init__(self, patience):
        self.patience = patience
        self.best = -math.inf
        self.bad = 0

    def on_log(self, trainer, row):
        if self.patience <= 0:
            return
        if row["val_acc"] > self.best + 1e-4:
            self.best, self.bad = row["val_acc"], 0
        else:
            self.bad += 1
            if self.bad >= self.patience:
                trainer.should_stop = True


class NonFiniteGuard(Callback):
    """Fails loudly on a NaN/inf loss instead of training on garbage."""

    def on_log(self, trainer, row):
        if not math.isfinite(row["loss"]):
            raise FloatingPointError(f"non-finite loss {row['loss']} at step {row['step']}")


def default_callbacks(cfg, max_entropy):
    return [
        NonFiniteGuard(),
        ConsoleLogger(max_entropy),
        MetricsFile(cfg.train.out_dir),
        BestCheckpoint(cfg.train.out_dir, save=cfg.train.save_checkpoints),
        EarlyStopping(cfg.train.early_stop_patience),
    ]

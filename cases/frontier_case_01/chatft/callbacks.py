"""Trainer callbacks: gradient clipping, console log, metrics file, best checkpoint, non-finite guard.

The trainer calls ``on_train_start``, ``on_after_backward`` after a backward pass (once per
micro-batch), ``on_before_optimizer_step`` once the step's micro-batches are accumulated,
``on_log(row)`` at every logged step and ``on_train_end``; a callback may set
``trainer.should_stop`` to end the run early.
"""

import json
import math
from pathlib import Path

import torch


class Callback:
    def on_train_start(self, trainer):
        pass

    def on_after_backward(self, trainer):
        pass

    def on_before_optimizer_step(self, trainer):
        pass

    def on_log(self, trainer, row):
        pass

    def on_train_end(self, trainer):
        pass


class GradientClipping(Callback):
    """Clips the gradient's total norm to ``optim.clip_grad_norm`` (0: no clipping); the norm before clipping goes to the log."""

    def __init__(self, max_norm):
        self.max_norm = max_norm if max_norm > 0 else math.inf

    def on_before_optimizer_step(self, trainer):
        params = [p for p in trainer.model.parameters() if p.grad is not None]
        trainer.grad_norm = float(torch.nn.utils.clip_grad_norm_(params, self.max_norm))


class ConsoleLogger(Callback):
    """One line per logged step: ``step N | loss x | grad norm y | lr z | batch AxB (n tokens) | val reply v``."""

    def on_log(self, trainer, row):
        val = f" | val reply {row['val_reply']:.3f}" if "val_reply" in row else ""
        print(f"step {row['step']:4d} | loss {row['loss']:.4f} | grad norm {row['grad_norm']:.3f} | "
              f"lr {row['lr']:.2e} | batch {row['batch']} ({row['tokens']} tokens){val}",
              flush=True)


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
    """Keeps the weights with the lowest held-out reply loss (on disk if enabled)."""

    def __init__(self, out_dir, save=True):
        self.path = Path(out_dir) / "best.pt"
        self.save = save
        self.best_loss = math.inf
        self.best_step = None

    def on_log(self, trainer, row):
        if "val_reply" in row and row["val_reply"] < self.best_loss:
            self.best_loss, self.best_step = row["val_reply"], row["step"]
            if self.save:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                torch.save({"step": row["step"], "model": trainer.model.state_dict()}, self.path)


class NonFiniteGuard(Callback):
    """Fails loudly on a NaN/inf loss instead of training on garbage."""

    def on_log(self, trainer, row):
        if not math.isfinite(row["loss"]):
            raise FloatingPointError(f"non-finite loss {row['loss']} at step {row['step']}")


def default_callbacks(cfg):
    return [
        GradientClipping(cfg.optim.clip_grad_norm),
        NonFiniteGuard(),
        ConsoleLogger(),
        MetricsFile(cfg.train.out_dir),
        BestCheckpoint(cfg.train.out_dir, save=cfg.train.save_checkpoints),
    ]

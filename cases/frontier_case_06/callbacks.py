"""Trainer callbacks: console logging, periodic validation, checkpointing."""

import time
from pathlib import Path

import torch


class Callback:
    def on_train_begin(self, trainer):
        pass

    def on_step_end(self, trainer, step, loss):
        pass

    def on_epoch_end(self, trainer, epoch):
        pass

    def on_train_end(self, trainer):
        pass


class ConsoleLogger(Callback):
    def __init__(self, every):
        self.every = every
        self.running = 0.0
        self.count = 0
        self.t0 = None

    def on_train_begin(self, trainer):
        self.t0 = time.time()

    def on_step_end(self, trainer, step, loss):
        self.running += loss
        self.count += 1
        if self.every and (step + 1) % self.every == 0:
            lr = trainer.optimizer.param_groups[0]["lr"]
            print(f"step {step + 1:4d} | loss {self.running / self.count:.4f} | lr {lr:.2e}")
            self.running, self.count = 0.0, 0

    def on_train_end(self, trainer):
        print(f"done in {time.time() - self.t0:.1f}s")


class PeriodicEval(Callback):
    def __init__(self, every):
        self.every = every
        self.history = []

    def on_step_end(self, trainer, step, loss):
        if self.every and (step + 1) % self.every == 0:
            summary = trainer.evaluate()
            self.history.append((step + 1, summary["accuracy"], summary["macro_f1"]))
            print(f"eval {step + 1:4d} | acc {summary['accuracy']:.3f} | macro-F1 {summary['macro_f1']:.3f}")


class Checkpoint(Callback):
    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)

    def on_train_end(self, trainer):
        self.out_dir.mkdir(parents=True, exist_ok=True)
        torch.save({"model": trainer.model.state_dict(), "itos": trainer.vocab.itos}, self.out_dir / "router.pt")

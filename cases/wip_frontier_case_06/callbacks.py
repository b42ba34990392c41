"""Trainer callbacks: console logging, periodic validation, checkpointing."""

import json
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


class EarlyStopping(Callback):
    """Stops after `patience` periodic evaluations without a better macro-F1 (needs PeriodicEval first)."""

    def __init__(self, evaluator, patience):
        self.evaluator = evaluator
        self.patience = patience
        self.best = -1.0
        self.bad = 0
        self.seen = 0

    def on_step_end(self, trainer, step, loss):
        history = self.evaluator.history
        if len(history) == self.seen:
            return
        self.seen = len(history)
        score = history[-1][2]
        if score > self.best:
            self.best, self.bad = score, 0
        else:
            self.bad += 1
            if self.bad >= self.patience:
                trainer.stop = True


class MetricsFile(Callback):
    """Appends one JSON line per logged step and the final summary to `path`."""

    def __init__(self, path, every):
        self.path = Path(path)
        self.every = every

    def on_train_begin(self, trainer):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")

    def _write(self, record):
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")

    def on_step_end(self, trainer, step, loss):
        if self.every and (step + 1) % self.every == 0:
            self._write({"step": step + 1, "loss": loss, "lr": trainer.optimizer.param_groups[0]["lr"]})

    def on_train_end(self, trainer):
        summary = trainer.evaluate()
        self._write({"final": True, "accuracy": summary["accuracy"], "macro_f1": summary["macro_f1"],
                     "recall": {q: v["recall"] for q, v in summary["per_queue"].items()}})

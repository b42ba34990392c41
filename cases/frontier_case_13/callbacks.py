"""Trainer callbacks: progress lines, the best epoch's weights, and an optional export."""

import copy
import json
from pathlib import Path

import torch


class Callback:
    def on_epoch_end(self, trainer, epoch, logs):
        pass

    def on_train_end(self, trainer):
        pass


class ProgressPrinter(Callback):
    def __init__(self, every=1):
        self.every = every

    def on_epoch_end(self, trainer, epoch, logs):
        if epoch % self.every == 0 or epoch == trainer.cfg.train.epochs - 1:
            print(f"epoch {epoch:2d} | train loss {logs['train_loss']:.3f} acc {logs['train_acc']:.3f} | "
                  f"val loss {logs['val_loss']:.3f} acc {logs['val_acc']:.3f} | lr {logs['lr']:.2e}")


class BestWeights(Callback):
    """Keeps the weights of the epoch with the lowest validation loss (restored at the end)."""

    def __init__(self):
        self.best = float("inf")
        self.state = None
        self.epoch = -1

    def on_epoch_end(self, trainer, epoch, logs):
        if logs["val_loss"] < self.best:
            self.best, self.epoch = logs["val_loss"], epoch
            self.state = copy.deepcopy(trainer.model.state_dict())

    def on_train_end(self, trainer):
        if self.state is not None:
            trainer.model.load_state_dict(self.state)


class Exporter(Callback):
    def __init__(self, out_dir):
        self.out_dir = Path(out_dir)

    def on_train_end(self, trainer):
        self.out_dir.mkdir(parents=True, exist_ok=True)
        torch.save(trainer.model.state_dict(), self.out_dir / "model.pt")
        (self.out_dir / "history.json").write_text(json.dumps(trainer.history, indent=1))

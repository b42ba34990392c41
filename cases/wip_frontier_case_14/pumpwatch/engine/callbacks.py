"""Epoch-end callbacks: console line, metrics file, best checkpoint, early stopping."""

import copy
import json
from pathlib import Path

import torch


class Callback:
    def on_fit_start(self, trainer):
        pass

    def on_epoch_end(self, trainer, row):
        pass

    def on_fit_end(self, trainer):
        pass


class ConsoleLog(Callback):
    def __init__(self, echo=True):
        self.echo = echo

    def on_epoch_end(self, trainer, row):
        if self.echo:
            print(f"epoch {row['epoch']:2d} | lr {row['lr']:.2e} | train loss {row['train_loss']:.4f} | "
                  f"val loss {row['val_loss']:.4f} | val acc {row['val_acc']:.3f} | val f1 {row['val_f1']:.3f}",
                  flush=True)


class MetricsFile(Callback):
    def __init__(self, path):
        self.path = Path(path)

    def on_fit_start(self, trainer):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")

    def on_epoch_end(self, trainer, row):
        with self.path.open("a") as fh:
            fh.write(json.dumps({k: v for k, v in row.items() if k != "confusion"}) + "\n")


class BestCheckpoint(Callback):
    """Keeps the weights of the best epoch by ``select`` (f1/acc: higher is better; loss: lower)."""

    def __init__(self, select="f1"):
        self.select = select
        self.best = None
        self.state = None

    def _score(self, row):
        value = row[f"val_{self.select}"]
        return -value if self.select == "loss" else value

    def on_epoch_end(self, trainer, row):
        if self.best is None or self._score(row) > self._score(self.best):
            self.best = dict(row)
            self.state = copy.deepcopy(trainer.model.state_dict())

    def restore(self, model):
        if self.state is not None:
            model.load_state_dict(self.state)


class EarlyStopping(Callback):
    def __init__(self, patience, select="f1"):
        self.patience = patience
        self.select = select
        self.best = None
        self.waited = 0

    def on_epoch_end(self, trainer, row):
        if self.patience <= 0:
            return
        value = row[f"val_{self.select}"]
        better = self.best is None or (value < self.best if self.select == "loss" else value > self.best)
        if better:
            self.best, self.waited = value, 0
        else:
            self.waited += 1
            if self.waited >= self.patience:
                trainer.stop = True


def save_checkpoint(path, model, cfg, scaler_state, best):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.state_dict(), "config": cfg.to_dict(), "scaler": scaler_state, "best": best}, path)

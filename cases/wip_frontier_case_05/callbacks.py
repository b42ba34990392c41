"""Trainer callbacks. Hooks: on_train_start, on_step_end (after every optimizer step),
on_epoch_end (after validation), on_train_end. A hook may set `trainer.stop = True`."""

import json
import math
import time
from pathlib import Path


class Callback:
    def on_train_start(self, trainer):
        pass

    def on_step_end(self, trainer, loss):
        pass

    def on_epoch_end(self, trainer, epoch, logs):
        pass

    def on_train_end(self, trainer):
        pass


class LRScheduler(Callback):
    """Advances the learning-rate schedule as training progresses."""

    def __init__(self, scheduler):
        self.scheduler = scheduler

    def on_step_end(self, trainer, loss):
        self.scheduler.step()


class History(Callback):
    """Keeps one record per epoch (losses, metrics, learning rate, wall time)."""

    def __init__(self):
        self.rows = []

    def on_train_start(self, trainer):
        self.t0 = time.perf_counter()

    def on_epoch_end(self, trainer, epoch, logs):
        row = {"epoch": epoch, **logs, "lr": trainer.optimizer.param_groups[0]["lr"],
               "time_s": round(time.perf_counter() - self.t0, 3)}
        self.rows.append(row)


class ConsoleLogger(Callback):
    def __init__(self, print_fn=print):
        self.print = print_fn

    def on_epoch_end(self, trainer, epoch, logs):
        self.print(f"epoch {epoch:2d} | train loss {logs['train_loss']:.5f} | "
                   f"val mae {logs['val_mae']:.3f} | val bias {logs['val_bias']:+.3f}")


class EarlyStopping(Callback):
    def __init__(self, patience, monitor="val_mae"):
        self.patience, self.monitor = patience, monitor
        self.best, self.bad = math.inf, 0

    def on_epoch_end(self, trainer, epoch, logs):
        if self.patience <= 0:
            return
        if logs[self.monitor] < self.best - 1e-6:
            self.best, self.bad = logs[self.monitor], 0
        else:
            self.bad += 1
            if self.bad >= self.patience:
                trainer.stop = True


class JsonlWriter(Callback):
    def __init__(self, path):
        self.path = Path(path)

    def on_train_start(self, trainer):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")

    def on_epoch_end(self, trainer, epoch, logs):
        with open(self.path, "a") as f:
            f.write(json.dumps({"epoch": epoch, **logs}) + "\n")

"""Trainer callbacks: learning-rate schedule, gradient clipping, logging, history, metrics file."""

import json
import math
import statistics

import torch


class Callback:
    """Hooks the trainer calls; every method is optional."""

    def on_train_begin(self, trainer):
        pass

    def before_step(self, trainer, step):
        pass

    def after_backward(self, trainer, step):
        pass

    def on_log(self, trainer, step, row):
        pass

    def on_train_end(self, trainer):
        pass


class LRSchedule(Callback):
    """Linear warmup from 0 over ``warmup`` steps, then constant or cosine decay to 10% of the peak."""

    def __init__(self, peak, total, warmup=0, kind="constant", floor=0.1):
        if kind not in ("constant", "cosine"):
            raise ValueError(f"optim.schedule: unknown schedule {kind!r} (constant, cosine)")
        self.peak, self.total, self.warmup, self.kind, self.floor = peak, total, warmup, kind, floor

    def lr_at(self, step):
        if step < self.warmup:
            return self.peak * step / self.warmup
        if self.kind == "constant":
            return self.peak
        progress = (step - self.warmup) / max(1, self.total - self.warmup)
        return self.peak * (self.floor + (1 - self.floor) * 0.5 * (1 + math.cos(math.pi * progress)))

    def before_step(self, trainer, step):
        for group in trainer.optimizer.param_groups:
            group["lr"] = self.lr_at(step)


class GradClip(Callback):
    """Clips the global gradient norm and keeps count of how often it had to."""

    def __init__(self, max_norm):
        self.max_norm = max_norm
        self.norms = []

    def after_backward(self, trainer, step):
        norm = torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), self.max_norm)
        self.norms.append(float(norm))

    def on_train_end(self, trainer):
        if self.norms:
            clipped = sum(n > self.max_norm for n in self.norms)
            print(f"grad clip: {clipped}/{len(self.norms)} steps clipped at max-norm {self.max_norm} "
                  f"(median norm {statistics.median(self.norms):.2f})")


class History(Callback):
    """Keeps every logged row; the trainer returns it."""

    def __init__(self):
        self.rows = []

    def on_log(self, trainer, step, row):
        self.rows.append(dict(row))


class ConsoleLogger(Callback):
    def on_train_begin(self, trainer):
        for line in trainer.header:
            print(line)

    def on_log(self, trainer, step, row):
        print(f"step {step:4d} | train loss {row['loss']:.4f} | val loss {row['val_loss']:.4f} | "
              f"val acc {row['val_acc']:.3f} | lr {row['lr']:.2e}", flush=True)


class BestWeights(Callback):
    """Remembers the weights of the logged step with the lowest validation loss and puts them back
    into the model when training ends."""

    def __init__(self):
        self.best_loss, self.best_step, self.state = float("inf"), None, None

    def on_log(self, trainer, step, row):
        if row["val_loss"] < self.best_loss:
            self.best_loss, self.best_step = row["val_loss"], step
            self.state = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}

    def on_train_end(self, trainer):
        if self.state is not None:
            trainer.model.load_state_dict(self.state)
            print(f"restored the weights of step {self.best_step} (val loss {self.best_loss:.4f})")


class EarlyStopping(Callback):
    """Stops training when the validation loss has not improved for ``patience`` logged steps."""

    def __init__(self, patience, min_delta=1e-4):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad = float("inf"), 0

    def on_log(self, trainer, step, row):
        if row["val_loss"] < self.best - self.min_delta:
            self.best, self.bad = row["val_loss"], 0
            return
        self.bad += 1
        if self.bad >= self.patience:
            trainer.stop_requested = True
            print(f"early stop at step {step}: no improvement in {self.patience} evaluations")


class MetricsFile(Callback):
    """One JSON line per logged step, for the comparison notebooks."""

    def __init__(self, path):
        self.path = path

    def on_train_begin(self, trainer):
        open(self.path, "w").close()

    def on_log(self, trainer, step, row):
        with open(self.path, "a") as fh:
            fh.write(json.dumps(row) + "\n")

"""Trainer callbacks: history, console, metrics file, gradient health, clipping stats, early stop.

Hooks, in the order the trainer calls them each step:
  on_after_backward(state)  gradients are final (clipped), the optimizer has not stepped yet
  on_step_end(state)        the optimizer has stepped
  on_log(state, row)        logged steps only; each callback may add fields to `row`, in list order
and on_train_begin(state) / on_train_end(state) around the run.
"""

import json
import math
from pathlib import Path

import torch


class Callback:
    def on_train_begin(self, state):
        pass

    def on_after_backward(self, state):
        pass

    def on_step_end(self, state):
        pass

    def on_log(self, state, row):
        pass

    def on_train_end(self, state):
        pass


class CallbackList(Callback):
    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def __iter__(self):
        return iter(self.callbacks)

    def on_train_begin(self, state):
        for cb in self.callbacks:
            cb.on_train_begin(state)

    def on_after_backward(self, state):
        for cb in self.callbacks:
            cb.on_after_backward(state)

    def on_step_end(self, state):
        for cb in self.callbacks:
            cb.on_step_end(state)

    def on_log(self, state, row):
        for cb in self.callbacks:
            cb.on_log(state, row)

    def on_train_end(self, state):
        for cb in self.callbacks:
            cb.on_train_end(state)


class GradHealth(Callback):
    """Stop at the first non-finite gradient, naming the parameter (cheaper than a NaN hunt later)."""

    def on_after_backward(self, state):
        for name, p in state.model.named_parameters():
            if p.grad is not None and not torch.isfinite(p.grad).all():
                raise FloatingPointError(f"non-finite gradient in {name} at step {state.step}")


class ClipStats(Callback):
    """How often the gradient norm exceeded the clipping threshold (warns when it is most steps)."""

    def __init__(self, max_norm):
        self.max_norm, self.clipped, self.steps = max_norm, 0, 0

    def on_after_backward(self, state):
        self.steps += 1
        if self.max_norm > 0 and state.grad_norm > self.max_norm:
            self.clipped += 1

    def on_log(self, state, row):
        row["clip_frac"] = self.clipped / max(1, self.steps)

    def on_train_end(self, state):
        if self.max_norm > 0 and self.clipped > 0.5 * self.steps:
            print(f"warning: gradient norm above grad_clip={self.max_norm:g} on {self.clipped}/{self.steps} steps",
                  flush=True)


class History(Callback):
    """Keeps every logged row; the trainer returns `rows`."""

    def __init__(self):
        self.rows = []

    def on_log(self, state, row):
        self.rows.append(row)


class ConsoleLogger(Callback):
    """One line per logged step; the update-ratio panel when a monitor provides it."""

    def on_log(self, state, row):
        parts = [f"step {row['step']:4d}", f"lr {row['lr']:.2e}", f"loss {row['loss']:.3f}"]
        if "val_loss" in row:
            parts.append(f"val {row['val_loss']:.3f}")
        parts.append(f"grad {row['grad_norm']:.2f}")
        panel = row.get("update_ratio")
        if panel:
            shown = " ".join(f"{name.removesuffix('.weight')} {value:+.2f}" for name, value in panel.items())
            parts.append(f"log10 upd/param: {shown}")
        print(" | ".join(parts), flush=True)


class JsonlWriter(Callback):
    """The dashboard's input: one JSON object per logged step."""

    def __init__(self, path):
        self.path = Path(path)
        self.file = None

    def on_train_begin(self, state):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "w")
        self.file.write(json.dumps({"config": state.config.to_dict()}) + "\n")

    def on_log(self, state, row):
        self.file.write(json.dumps(row) + "\n")
        self.file.flush()

    def on_train_end(self, state):
        if self.file:
            self.file.close()
            self.file = None


class EarlyStopping(Callback):
    """Stop when the validation loss has not improved for `patience` logged evaluations (0 = off)."""

    def __init__(self, patience, min_delta=1e-4):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad = math.inf, 0

    def on_log(self, state, row):
        if self.patience <= 0 or "val_loss" not in row:
            return
        if row["val_loss"] < self.best - self.min_delta:
            self.best, self.bad = row["val_loss"], 0
        else:
            self.bad += 1
            if self.bad >= self.patience:
                state.stop = True

"""The training loop: one optimizer step per batch, validation and callbacks every ``log_every`` steps."""

import torch
import torch.nn as nn

from har.evaluate import evaluate
from har.optim import current_lr


def total_grad_norm(parameters):
    norms = [p.grad.detach().norm() for p in parameters if p.grad is not None]
    return torch.stack(norms).norm().item() if norms else 0.0


class Trainer:
    def __init__(self, model, optimizer, scheduler, cfg, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.cfg = cfg
        self.callbacks = list(callbacks)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=cfg.train.label_smoothing)
        self.should_stop = False
        self.history = []
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_step(self, xb, yb):
        self.model.train()
        out = self.model(xb)
        loss = self.criterion(out, yb)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        params = [p for p in self.model.parameters() if p.grad is not None]
        clip = self.cfg.optim.clip_grad_norm
        if clip > 0:
            grad_norm = nn.utils.clip_grad_norm_(params, clip).item()
        else:
            grad_norm = total_grad_norm(params)
        return loss.item(), grad_norm

    def log_row(self, loss, grad_norm, splits):
        row = {"step": self.step, "loss": loss, "lr": current_lr(self.optimizer), "grad_norm": grad_norm}
        row.update(evaluate(self.model, splits.x_val, splits.y_val, self.cfg.data.n_classes))
        return row

    def fit(self, stream, splits):
        """Train for ``train.steps`` optimizer steps; logs step 0 (before any update) through the last."""
        steps, log_every = self.cfg.train.steps, self.cfg.train.log_every
        self._emit("on_train_start")
        batches = iter(stream)
        for self.step in range(steps + 1):
            xb, yb = next(batches)
            loss, grad_norm = self.train_step(xb, yb)
            if self.step % log_every == 0 or self.step == steps:
                row = self.log_row(loss, grad_norm, splits)
                self.history.append(row)
                self._emit("on_log", row)
            if self.should_stop or self.step == steps:
                break
            self.optimizer.step()
            self.scheduler.step()
        self._emit("on_train_end")
        return self.history

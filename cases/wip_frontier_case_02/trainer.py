"""The training loop: fit() runs the epochs, evaluates on the held-out cows and calls the callbacks."""

import torch
import torch.nn.functional as F

from metrics import evaluate
from optim import WarmupCosine, build_optimizer


class Trainer:
    def __init__(self, model, cfg, callbacks=()):
        self.model = model
        self.cfg = cfg
        self.callbacks = list(callbacks)
        self.step = 0
        self.epoch = 0
        self.history = []

    def setup(self, train_loader, val_loader, classes):
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.classes = tuple(classes)
        t = self.cfg.train
        self.total_steps = t.epochs * len(train_loader)
        self.optimizer = build_optimizer(self.model, t.lr, t.weight_decay)
        self.scheduler = WarmupCosine(self.optimizer, t.warmup_steps, self.total_steps)
        return self

    def _call(self, hook, *args):
        for cb in self.callbacks:
            fn = getattr(cb, hook, None)
            if fn is not None:
                fn(self, *args)

    def training_step(self, x, y):
        self.model.train()
        loss = F.cross_entropy(self.model(x), y)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        if self.cfg.train.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.train.grad_clip)
        self.optimizer.step()
        self.scheduler.step()
        self.step += 1
        return loss.item()

    def fit(self):
        self._call("on_fit_start")
        for epoch in range(1, self.cfg.train.epochs + 1):
            self.epoch = epoch
            losses = []
            for x, y in self.train_loader:
                losses.append(self.training_step(x, y))
                self._call("on_step_end", losses[-1])
            metrics = evaluate(self.model, self.val_loader, len(self.classes))
            metrics["train_loss"] = sum(losses) / max(1, len(losses))
            self.history.append({"step": self.step, "epoch": epoch, **metrics})
            self._call("on_epoch_end", metrics)
        self._call("on_fit_end")
        return self.history

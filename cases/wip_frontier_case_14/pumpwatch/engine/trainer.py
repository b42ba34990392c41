"""The training loop: AdamW, warmup + cosine per step, one validation pass per epoch."""

import math
import random

import numpy as np
import torch
import torch.nn.functional as F

from ..metrics import summarize


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)


def epoch_seed(seed, epoch):
    """Each epoch's randomness depends only on (seed, epoch), so a resumed run repeats it exactly."""
    return seed * 1009 + epoch


def lr_lambda(total_steps, warmup_steps, min_ratio):
    def fn(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return fn


class Trainer:
    def __init__(self, cfg, model, train, val, augment, callbacks=(), n_classes=5):
        self.cfg = cfg
        self.model = model
        self.train_split = train
        self.val_split = val
        self.augment = augment
        self.callbacks = list(callbacks)
        self.n_classes = n_classes
        self.steps_per_epoch = math.ceil(len(train.y) / cfg.data.batch_size)
        self.opt = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
        total = self.steps_per_epoch * cfg.trainer.epochs
        self.sched = torch.optim.lr_scheduler.LambdaLR(
            self.opt, lr_lambda(total, self.steps_per_epoch * cfg.optim.warmup_epochs, cfg.optim.min_lr_ratio))
        self.history = []
        self.stop = False
        self.step = 0

    def train_epoch(self):
        self.model.train()
        x_all, y_all = self.train_split.x, self.train_split.y
        order = torch.randperm(len(y_all))
        total, count = 0.0, 0
        for start in range(0, len(order), self.cfg.data.batch_size):
            idx = order[start:start + self.cfg.data.batch_size]
            x, y = self.augment(x_all[idx]), y_all[idx]
            loss = F.cross_entropy(self.model(x), y, label_smoothing=self.cfg.optim.label_smoothing)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            self.sched.step()
            self.step += 1
            total += loss.item() * len(y)
            count += len(y)
        return total / count

    @torch.no_grad()
    def evaluate(self, split):
        was_training = self.model.training
        self.model.eval()
        logits = torch.cat([self.model(split.x[i:i + self.cfg.eval.batch_size])
                            for i in range(0, len(split.y), self.cfg.eval.batch_size)])
        self.model.train(was_training)
        out = summarize(logits, split.y, self.n_classes)
        out["loss"] = F.cross_entropy(logits, split.y).item()
        return out

    def fit(self, start_epoch=1):
        for cb in self.callbacks:
            cb.on_fit_start(self)
        for epoch in range(start_epoch, self.cfg.trainer.epochs + 1):
            seed_everything(epoch_seed(self.cfg.seed, epoch))
            lr = self.opt.param_groups[0]["lr"]
            train_loss = self.train_epoch()
            val = self.evaluate(self.val_split)
            row = {"epoch": epoch, "step": self.step, "lr": lr, "train_loss": train_loss,
                   "val_loss": val["loss"], "val_acc": val["acc"], "val_f1": val["f1"],
                   "val_recall": val["recall"], "confusion": val["confusion"]}
            self.history.append(row)
            for cb in self.callbacks:
                cb.on_epoch_end(self, row)
            if self.stop:
                break
        for cb in self.callbacks:
            cb.on_fit_end(self)
        return self.history

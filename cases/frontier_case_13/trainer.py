"""The training loop: AdamW with a cosine schedule, cross-entropy, one validation pass per epoch."""

import math

import torch
import torch.nn.functional as F

from loader import eval_loader, train_loader
from optim import AdamW
from metrics import summarize


class Trainer:
    def __init__(self, cfg, model, train_x, train_y, val_x, val_y, n_classes, callbacks=()):
        self.cfg = cfg
        self.model = model
        self.train_x, self.train_y = train_x, train_y
        self.val_x, self.val_y = val_x, val_y
        self.n_classes = n_classes
        self.callbacks = list(callbacks)
        self.opt = AdamW(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)
        steps_per_epoch = math.ceil(len(train_y) / cfg.train.batch_size)
        self.total_steps = steps_per_epoch * cfg.train.epochs
        self.step = 0
        self.history = []

    def lr_at(self, step):
        return self.cfg.train.lr * 0.5 * (1 + math.cos(math.pi * min(step, self.total_steps) / self.total_steps))

    def train_epoch(self, epoch):
        self.model.train()
        total, correct, n = 0.0, 0, 0
        for x, y in train_loader(self.train_x, self.train_y, self.cfg, epoch):
            for group in self.opt.param_groups:
                group["lr"] = self.lr_at(self.step)
            logits = self.model(x)
            loss = F.cross_entropy(logits, y, label_smoothing=self.cfg.train.label_smoothing)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            self.step += 1
            total += loss.item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            n += len(y)
        return total / n, correct / n

    @torch.no_grad()
    def evaluate(self, x=None, y=None):
        x = self.val_x if x is None else x
        y = self.val_y if y is None else y
        self.model.eval()
        logits = torch.cat([self.model(xb) for xb, _ in eval_loader(x, y)])
        return summarize(logits, torch.as_tensor(y), self.n_classes), logits

    def fit(self):
        for epoch in range(self.cfg.train.epochs):
            train_loss, train_acc = self.train_epoch(epoch)
            val, _ = self.evaluate()
            logs = {"epoch": epoch, "train_loss": train_loss, "train_acc": train_acc,
                    "val_loss": val["loss"], "val_acc": val["acc"], "lr": self.lr_at(self.step)}
            self.history.append(logs)
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch, logs)
        for cb in self.callbacks:
            cb.on_train_end(self)
        return self.history

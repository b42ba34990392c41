"""The training loop: AdamW, linear warmup then cosine decay, cross-entropy over the activities."""

import math

import torch
import torch.nn.functional as F

from data import iterate_batches
from metrics import confusion, summary
from optim import AdamW, WarmupCosine, clip_grad_norm


class Trainer:
    def __init__(self, model, train, val, cfg, names, callbacks=()):
        self.model, self.train, self.val, self.cfg, self.names = model, train, val, cfg, names
        self.callbacks = list(callbacks)
        self.opt = AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        self.steps_per_epoch = math.ceil(len(train) / cfg.batch_size)
        self.total_steps = cfg.epochs * self.steps_per_epoch
        self.schedule = WarmupCosine(cfg.lr, cfg.warmup_steps, self.total_steps)
        self.step, self.epoch, self.history, self.stop = 0, 0, [], False
        self.class_weight = self._class_weight(train.labels, len(names)) if cfg.class_weights == "balanced" else None

    @staticmethod
    def _class_weight(labels, n):
        counts = torch.bincount(labels, minlength=n).float()
        return counts.sum() / (n * counts.clamp_min(1))

    def lr(self):
        return self.schedule(self.step)

    def train_step(self, tokens, lengths, times, labels):
        self.model.train()
        self.opt.lr = self.lr()
        logits = self.model(tokens, lengths, times)
        loss = F.cross_entropy(logits, labels, weight=self.class_weight, label_smoothing=self.cfg.label_smoothing)
        self.opt.zero_grad()
        loss.backward()
        clip_grad_norm(self.opt.params, self.cfg.grad_clip)
        self.opt.step()
        return loss.item()

    @torch.no_grad()
    def predict(self, data, batch_size=None):
        self.model.eval()
        preds = []
        for tokens, lengths, times, _ in iterate_batches(data, batch_size or self.cfg.eval_batch_size, shuffle=False):
            preds.append(self.model(tokens, lengths, times).argmax(-1))
        return torch.cat(preds)

    def evaluate(self, data, batch_size=None):
        cm = confusion(self.predict(data, batch_size), data.labels, len(self.names))
        return summary(cm, self.names)

    def fit(self, generator):
        for epoch in range(self.cfg.epochs):
            self.epoch = epoch
            for tokens, lengths, times, labels in iterate_batches(self.train, self.cfg.batch_size, generator):
                loss = self.train_step(tokens, lengths, times, labels)
                for cb in self.callbacks:
                    cb.on_step(self, self.step, loss)
                self.step += 1
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch)
            if self.stop:
                break

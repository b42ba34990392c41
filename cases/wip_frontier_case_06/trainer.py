"""The training loop: batches, loss, AdamW step with clipping and schedule, callbacks, evaluation."""

import torch
import torch.nn.functional as F

from dataset import QUEUES, batches_per_epoch, iterate_batches
from metrics import summarize
from optim import build_optimizer, build_scheduler, clip_gradients


class Trainer:
    def __init__(self, cfg, model, vocab, train_set, val_set, callbacks=()):
        self.cfg = cfg
        self.model = model
        self.vocab = vocab
        self.train_set = train_set
        self.val_set = val_set
        self.callbacks = list(callbacks)
        self.total_steps = cfg.train.epochs * batches_per_epoch(train_set, cfg.train.batch_size)
        self.optimizer = build_optimizer(model, cfg.optim)
        self.scheduler = build_scheduler(self.optimizer, cfg.optim, self.total_steps)
        self.generator = torch.Generator().manual_seed(cfg.train.seed)
        self.step = 0
        self.stop = False

    def _emit(self, event, *args):
        for cb in self.callbacks:
            getattr(cb, event)(self, *args)

    def train_step(self, ids, lengths, activity, labels, weights):
        self.model.train()
        logits = self.model(ids, lengths, activity)
        per_ticket = F.cross_entropy(logits, labels, label_smoothing=self.cfg.train.label_smoothing, reduction="none")
        w = weights.double()
        loss = ((per_ticket.double() * w).sum() / w.sum()).float()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        clip_gradients(self.model, self.cfg.optim.grad_clip)
        self.optimizer.step()
        self.scheduler.step()
        return loss.item()

    def fit(self):
        self._emit("on_train_begin")
        for epoch in range(self.cfg.train.epochs):
            for ids, lengths, activity, labels, weights in iterate_batches(self.train_set, self.cfg.train.batch_size,
                                                                           self.generator):
                loss = self.train_step(ids, lengths, activity, labels, weights)
                self._emit("on_step_end", self.step, loss)
                self.step += 1
                if self.stop:
                    break
            self._emit("on_epoch_end", epoch)
            if self.stop:
                break
        self._emit("on_train_end")
        return self.model

    @torch.no_grad()
    def predict(self, ds, batch_size=256):
        self.model.eval()
        preds = []
        for ids, lengths, activity, _, _ in iterate_batches(ds, batch_size, shuffle=False, drop_last=False):
            preds.append(self.model(ids, lengths, activity).argmax(-1))
        return torch.cat(preds)

    def evaluate(self, ds=None):
        ds = ds if ds is not None else self.val_set
        return summarize(self.predict(ds), ds.labels, QUEUES)

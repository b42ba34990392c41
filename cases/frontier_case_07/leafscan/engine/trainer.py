"""The trainer: owns the model, the optimizer and the data, runs the steps and calls the callbacks."""

import torch
import torch.nn.functional as F

from leafscan.data.synth import CLASSES
from leafscan.engine.loops import evaluating, forever, measure_batches, measure_split, train_step
from leafscan.logging_utils import step_line
from leafscan.metrics import summarize


class Trainer:
    def __init__(self, cfg, model, data, callbacks, logger):
        self.cfg, self.model, self.data, self.callbacks, self.logger = cfg, model, data, callbacks, logger
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr,
                                           weight_decay=cfg.optim.weight_decay)
        self.step = 0
        self.should_stop = False
        self.history = []
        self.best_step = None

    def current_lr(self):
        return self.optimizer.param_groups[0]["lr"]

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def validate(self):
        """Validation loss and metrics of the current weights."""
        with evaluating(self.model):
            if self.cfg.eval.mode == "whole":
                result = measure_split(self.model, self.data.val_x, self.data.val_y, self.data.val_house,
                                       F.cross_entropy)
            else:
                result = measure_batches(self.model, self.data.val_loader, F.cross_entropy)
        return summarize(result.loss, result.logits, result.labels, result.houses, len(CLASSES), self.cfg.eval.ece_bins)

    def fit(self):
        """Train for ``trainer.steps`` optimizer steps, validating every ``eval.every`` steps and at the end."""
        self.model.train()
        self._emit("on_fit_start")
        batches = forever(self.data.train_loader)
        loss_sum = correct = seen = 0
        while self.step < self.cfg.trainer.steps and not self.should_stop:
            lr = self.current_lr()
            loss, n_correct, n = train_step(self.model, next(batches), F.cross_entropy, self.optimizer,
                                            self.cfg.optim.grad_clip)
            self.step += 1
            loss_sum, correct, seen = loss_sum + loss * n, correct + n_correct, seen + n
            self._emit("on_step_end")
            if self.step % self.cfg.eval.every == 0 or self.step == self.cfg.trainer.steps:
                train = {"loss": loss_sum / seen, "acc": correct / seen}
                val = self.validate()
                self.history.append({"step": self.step, "lr": lr, "train": train, "val": val})
                self.logger.info(step_line(self.step, lr, train, val))
                self._emit("on_validation_end", train, val)
                loss_sum = correct = seen = 0
        self._emit("on_fit_end")
        return self.history

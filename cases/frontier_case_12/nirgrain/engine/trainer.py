"""The trainer: owns the model, the optimizer and the data, runs epochs and calls the callbacks."""

import torch
import torch.nn.functional as F

from nirgrain.data.synth import CLASSES
from nirgrain.engine.loops import evaluate_split, run_epoch
from nirgrain.logging_utils import epoch_line
from nirgrain.metrics import accuracy, summarize


class Trainer:
    def __init__(self, cfg, model, data, callbacks, logger):
        self.cfg, self.model, self.data, self.callbacks, self.logger = cfg, model, data, callbacks, logger
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
        self.step = 0
        self.should_stop = False
        self.history = []
        self.best_epoch = None
        self.revalidated = []
        self.average = None  # an ExponentialAverage once WeightAveraging has started it

    def evaluated_model(self):
        """The model validation, checkpoints and export use: the weight average once it exists."""
        if self.average is not None and self.cfg.ema.evaluate:
            return self.average.module
        return self.model

    def current_lr(self):
        return self.optimizer.param_groups[0]["lr"]

    def _after_step(self):
        self.step += 1
        for cb in self.callbacks:
            cb.on_step_end(self)

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def validate(self, model=None):
        """Validation loss and metrics of ``model`` (default: the evaluated model)."""
        model = self.evaluated_model() if model is None else model
        if self.cfg.eval.mode == "whole":
            result = evaluate_split(model, self.data.val_x, self.data.val_y, self.data.val_instrument, F.cross_entropy)
        else:
            result = run_epoch(model, self.data.val_loader, F.cross_entropy)
        return summarize(result.loss, result.logits, result.labels, result.instruments, len(CLASSES), self.cfg.eval.ece_bins)

    def train_epoch(self):
        self.model.train()
        result = run_epoch(self.model, self.data.train_loader, F.cross_entropy, self.optimizer,
                           grad_clip=self.cfg.optim.grad_clip, on_step=self._after_step)
        return {"loss": result.loss, "acc": accuracy(result.logits, result.labels)}

    def fit(self):
        self._emit("on_fit_start")
        for epoch in range(1, self.cfg.trainer.epochs + 1):
            self._emit("on_train_epoch_start", epoch)
            lr = self.current_lr()
            train = self.train_epoch()
            self._emit("on_train_epoch_end", epoch, train)
            val = self.validate()
            self.history.append({"epoch": epoch, "step": self.step, "lr": lr, "train": train, "val": val})
            self.logger.info(epoch_line(epoch, lr, train, val))
            self._emit("on_validation_end", epoch, train, val)
            if self.should_stop:
                break
        self._emit("on_fit_end")
        return self.history

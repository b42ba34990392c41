"""The SFT loop: one optimizer step per ``train.grad_accum`` micro-batches; logging, evaluation and callbacks on schedule."""

import math

from chatft.accumulate import Accumulator
from chatft.losses import lm_loss
from chatft.metrics import held_out_reply
from chatft.optim import current_lr


class Trainer:
    def __init__(self, model, optimizer, scheduler, cfg, collate, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.cfg = cfg
        self.collate = collate
        self.callbacks = list(callbacks)
        self.accumulator = Accumulator(model.parameters(), cfg.train.grad_accum)
        self.grad_norm = math.nan
        self.should_stop = False
        self.history = []
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def backward(self, batch):
        """Forward and backward of one micro-batch into the step's gradient."""
        logits = self.model(batch["input_ids"], batch["attention_mask"])
        self.accumulator.backward(lm_loss(logits, batch["labels"]), batch)
        self._emit("on_after_backward")

    def train_step(self, micro_batches):
        """Forward and backward over one optimizer step's micro-batches; returns its loss (the caller steps)."""
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        self.accumulator.reset()
        for batch in micro_batches:
            self.backward(batch)
        self._emit("on_before_optimizer_step")
        return self.accumulator.loss

    def fit(self, stream, val_set):
        """``train.steps`` optimizer steps; every ``log_every``-th logs its loss and grad norm."""
        steps, tcfg = self.cfg.train.steps, self.cfg.train
        self._emit("on_train_start")
        for self.step in range(1, steps + 1):
            loss = self.train_step(next(stream) for _ in range(tcfg.grad_accum))
            lr = current_lr(self.optimizer)
            self.optimizer.step()
            self.scheduler.step()
            if self.step % tcfg.log_every == 0 or self.step == steps:
                acc = self.accumulator
                row = {"step": self.step, "loss": loss, "grad_norm": self.grad_norm, "lr": lr,
                       "batch": f"{acc.micro_batches}x{acc.rows}", "tokens": acc.tokens}
                if self.step % tcfg.eval_every == 0 or self.step == steps:
                    row["val_reply"] = held_out_reply(self.model, val_set, self.collate)
                self.history.append(row)
                self._emit("on_log", row)
            if self.should_stop:
                break
        self._emit("on_train_end")
        return self.history

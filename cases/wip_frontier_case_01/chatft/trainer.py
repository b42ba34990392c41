"""The SFT loop: one optimizer step per window of micro-batches; logging, evaluation and callbacks on schedule."""

import torch

from chatft.accumulate import Accumulator
from chatft.losses import lm_loss
from chatft.metrics import held_out_reply
from chatft.optim import current_lr


def total_grad_norm(parameters):
    norms = [p.grad.detach().norm() for p in parameters if p.grad is not None]
    return torch.stack(norms).norm().item() if norms else 0.0


class Trainer:
    def __init__(self, model, optimizer, scheduler, cfg, collate, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.cfg = cfg
        self.collate = collate
        self.callbacks = list(callbacks)
        self.accumulator = Accumulator(cfg.train.grad_accum)
        self.should_stop = False
        self.history = []
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_step(self, window):
        """Forward and backward over every micro-batch of ``window``, then clip; the caller steps."""
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        acc = self.accumulator
        acc.reset(window)
        for batch in window:
            logits = self.model(batch["input_ids"], batch["attention_mask"])
            acc.backward(lm_loss(logits, batch["labels"]), batch)
        params = [p for p in self.model.parameters() if p.grad is not None]
        grad_norm = total_grad_norm(params)
        if self.cfg.optim.clip_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(params, self.cfg.optim.clip_grad_norm)
        return acc.loss, grad_norm

    def fit(self, stream, val_set):
        """``train.steps`` optimizer steps; every ``log_every``-th logs its window's loss and grad norm."""
        steps, tcfg = self.cfg.train.steps, self.cfg.train
        self._emit("on_train_start")
        for self.step in range(1, steps + 1):
            window = [next(stream) for _ in range(tcfg.grad_accum)]
            loss, grad_norm = self.train_step(window)
            lr = current_lr(self.optimizer)
            self.optimizer.step()
            self.scheduler.step()
            if self.step % tcfg.log_every == 0 or self.step == steps:
                acc = self.accumulator
                row = {"step": self.step, "loss": loss, "grad_norm": grad_norm, "lr": lr,
                       "batch": f"{acc.micro_batches}x{window[0]['input_ids'].size(0)}", "tokens": acc.tokens}
                if self.step % tcfg.eval_every == 0 or self.step == steps:
                    row["val_reply"] = held_out_reply(self.model, val_set, self.collate)
                self.history.append(row)
                self._emit("on_log", row)
            if self.should_stop:
                break
        self._emit("on_train_end")
        return self.history

"""The SFT loop: one optimizer step per batch; logging, held-out evaluation and callbacks on schedule."""

import torch

from sft.losses import lm_loss
from sft.metrics import held_out_lm
from sft.optim import current_lr


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
        self.should_stop = False
        self.history = []
        self.step = 0

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_step(self, batch):
        self.model.train()
        logits = self.model(batch["input_ids"], batch["attention_mask"])
        loss = lm_loss(logits, batch["labels"])
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        params = [p for p in self.model.parameters() if p.grad is not None]
        grad_norm = total_grad_norm(params)
        if self.cfg.optim.clip_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(params, self.cfg.optim.clip_grad_norm)
        return loss.item(), grad_norm

    def fit(self, stream, val_set):
        """``train.steps`` optimizer steps; logs step 0 (before any update) through the last."""
        steps, tcfg = self.cfg.train.steps, self.cfg.train
        self._emit("on_train_start")
        for self.step in range(steps + 1):
            batch = next(stream)
            loss, grad_norm = self.train_step(batch)
            if self.step % tcfg.log_every == 0 or self.step == steps:
                B, T = batch["input_ids"].shape
                row = {"step": self.step, "loss": loss, "grad_norm": grad_norm, "lr": current_lr(self.optimizer),
                       "batch": f"{B}x{T}", "tokens": int(batch["attention_mask"].sum())}
                if self.step % tcfg.eval_every == 0 or self.step == steps:
                    row["val_lm"] = held_out_lm(self.model, val_set, self.collate)
                self.history.append(row)
                self._emit("on_log", row)
            if self.should_stop or self.step == steps:
                break
            self.optimizer.step()
            self.scheduler.step()
        self._emit("on_train_end")
        return self.history

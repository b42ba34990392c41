"""The training loop: one optimizer step per minibatch, callbacks around every stage."""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from callbacks import CallbackList
from dataset import BatchStream
from metrics import RunningMean, evaluate
from optim import Schedule, build_optimizer, clip_gradients


@dataclass
class TrainState:
    """What callbacks may read (and `stop`, which they may set)."""

    config: object
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    step: int = 0
    lr: float = 0.0
    loss: float = math.nan
    smooth_loss: float = math.nan
    grad_norm: float = 0.0
    stop: bool = False


class Trainer:
    def __init__(self, cfg, model, datasets, callbacks):
        self.cfg = cfg
        self.model = model
        self.x_train, self.y_train = datasets["train"]
        self.x_val, self.y_val = datasets["val"]
        self.optimizer = build_optimizer(cfg.optim, model)
        self.schedule = Schedule(cfg.optim, cfg.train.steps)
        self.callbacks = CallbackList(callbacks)
        self.state = TrainState(cfg, model, self.optimizer)

    def _unused_parameters(self):
        return [n for n, p in self.model.named_parameters() if p.requires_grad and p.grad is None]

    def _should_log(self, step):
        t = self.cfg.train
        return step == 1 or step % t.log_every == 0 or step == t.steps

    def _should_eval(self, step):
        every = self.cfg.train.eval_every or self.cfg.train.log_every
        return step == 1 or step % every == 0 or step == self.cfg.train.steps

    def fit(self):
        cfg, model, opt, state = self.cfg, self.model, self.optimizer, self.state
        stream = BatchStream(self.x_train, self.y_train, cfg.train.batch_size, seed=cfg.train.seed)
        smoother = RunningMean()
        self.callbacks.on_train_begin(state)
        for step in range(1, cfg.train.steps + 1):
            state.step = step
            state.lr = self.schedule.apply(opt, step - 1)
            xb, yb = next(stream)
            model.train()
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if step == 1 and self._unused_parameters():
                print(f"warning: parameters without gradient: {self._unused_parameters()}", flush=True)
            state.loss = loss.item()
            state.smooth_loss = smoother.update(state.loss)
            state.grad_norm = clip_gradients(model.parameters(), cfg.optim.grad_clip)
            self.callbacks.on_after_backward(state)
            opt.step()
            self.callbacks.on_step_end(state)
            if self._should_log(step):
                row = {"step": step, "lr": state.lr, "loss": state.loss, "smooth_loss": state.smooth_loss,
                       "grad_norm": state.grad_norm}
                if self._should_eval(step):
                    val = evaluate(model, self.x_val, self.y_val)
                    row.update(val_loss=val["loss"], val_acc=val["acc"], val_bpc=val["bpc"])
                self.callbacks.on_log(state, row)
            if state.stop:
                break
        self.callbacks.on_train_end(state)
        return model

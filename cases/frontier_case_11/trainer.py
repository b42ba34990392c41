"""The training loop over the site stream."""

from dataclasses import dataclass, field

import torch

from callbacks import CallbackList
from data import iterate_batches
from losses import poisson_deviance
from optim import Updater


@dataclass
class TrainState:
    model: torch.nn.Module
    step: int = 0
    epoch: int = 0
    site: str = ""
    batch_index: int = 0
    loss: torch.Tensor = None
    row: dict = field(default_factory=dict)
    stop: bool = False


class Trainer:
    def __init__(self, cfg, model, pipeline, callbacks, total_steps):
        self.cfg, self.model, self.pipeline = cfg, model, pipeline
        self.callbacks = CallbackList(callbacks)
        self.updater = Updater(cfg.optim, model, total_steps)
        self.state = TrainState(model)

    def train_step(self, raw, y):
        """Forward, loss, update on one batch; returns (loss, forecast, gradient norm)."""
        mu = self.model(self.pipeline(raw))
        self.state.loss = poisson_deviance(mu, y)
        self.callbacks.on_loss(self.state)
        norm = self.updater.update(self.state.loss)
        return self.state.loss.item(), mu.detach(), norm

    def fit(self, sites):
        cfg, state = self.cfg, self.state
        self.callbacks.on_train_begin(state)
        self.model.train()
        batches = iterate_batches(sites, cfg.train.batch_size, cfg.train.seed, cfg.train.epochs)
        for step, (epoch, site, i, raw, y) in enumerate(batches):
            if epoch != state.epoch:
                self.callbacks.on_epoch_end(state)
                if state.stop:
                    break
            state.step, state.epoch, state.site, state.batch_index = step, epoch, site, i
            lr = self.updater.set_lr(step)
            loss, mu, norm = self.train_step(raw, y)
            state.row = {"step": step, "epoch": epoch, "site": site, "loss": loss,
                         "mae_kwh": (mu - y).abs().mean().item(), "grad_norm": norm, "lr": lr}
            self.callbacks.on_batch_end(state)
        else:
            self.callbacks.on_epoch_end(state)
        self.callbacks.on_train_end(state)
        return self.model

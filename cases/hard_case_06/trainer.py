"""The training loop over the building stream."""

import math
from dataclasses import dataclass, field

import torch

from callbacks import CallbackList
from data import iterate_batches
from losses import gaussian_nll


@dataclass
class TrainState:
    model: torch.nn.Module
    step: int = 0
    epoch: int = 0
    shard: str = ""
    batch_index: int = 0
    loss: torch.Tensor = None
    row: dict = field(default_factory=dict)
    stop: bool = False


def lr_at(cfg, step, total):
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    if cfg.schedule == "cosine":
        progress = (step - cfg.warmup) / max(1, total - cfg.warmup)
        return cfg.lr * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return cfg.lr


class Trainer:
    def __init__(self, cfg, model, pipeline, target_scaler, callbacks):
        self.cfg, self.model, self.pipeline, self.scaler = cfg, model, pipeline, target_scaler
        self.callbacks = CallbackList(callbacks)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
        self.state = TrainState(model)

    def fit(self, shards, total_steps):
        cfg, model, opt, state = self.cfg, self.model, self.optimizer, self.state
        self.callbacks.on_train_begin(state)
        model.train()
        batches = iterate_batches(shards, cfg.train.batch_size, cfg.train.seed, cfg.train.epochs)
        for step, (epoch, shard, i, raw, y) in enumerate(batches):
            if epoch != state.epoch:
                self.callbacks.on_epoch_end(state)
                if state.stop:
                    break
            state.step, state.epoch, state.shard, state.batch_index = step, epoch, shard, i
            for group in opt.param_groups:
                group["lr"] = lr_at(cfg.optim, step, total_steps)
            x = self.pipeline(raw)
            mu, var = model(x)
            state.loss = gaussian_nll(mu, self.scaler.transform(y), var)
            self.callbacks.on_loss(state)
            opt.zero_grad()
            state.loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.optim.grad_clip).item()
            opt.step()
            with torch.no_grad():
                mae = (self.scaler.inverse(mu) - y).abs().mean().item()
            state.row = {"step": step, "epoch": epoch, "shard": shard, "loss": state.loss.item(), "mae_kwh": mae,
                         "grad_norm": gnorm}
            self.callbacks.on_batch_end(state)
        else:
            self.callbacks.on_epoch_end(state)
        self.callbacks.on_train_end(state)
        return model

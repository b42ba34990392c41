"""Optimizer, learning-rate schedule and the parameter update.

The same trainer runs on the GPU box in fp16, where an overflowing batch now and then yields an
inf gradient; as AMP's GradScaler does, such an update is skipped so one batch cannot poison
Adam's moment estimates. Skipped updates are counted in `UpdateStats`.
"""

import math
from dataclasses import dataclass

import torch


def build_optimizer(cfg, model):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim < 2 or name.endswith(".bias") else decay).append(p)
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.99))


def lr_at(cfg, step, total):
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    if cfg.schedule == "cosine":
        progress = (step - cfg.warmup) / max(1, total - cfg.warmup)
        return cfg.min_lr + (cfg.lr - cfg.min_lr) * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))
    return cfg.lr


@dataclass
class UpdateStats:
    applied: int = 0
    skipped: int = 0


class Updater:
    """backward, clip, step: one parameter update per batch."""

    def __init__(self, cfg, model, total_steps):
        self.cfg, self.total = cfg, total_steps
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = build_optimizer(cfg, model)
        self.stats = UpdateStats()

    def set_lr(self, step):
        lr = lr_at(self.cfg, step, self.total)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        return lr

    def update(self, loss):
        """Backpropagate `loss` and apply the update; returns the gradient norm before clipping."""
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(self.params, self.cfg.grad_clip)
        if torch.isfinite(norm):
            self.optimizer.step()
            self.stats.applied += 1
        else:
            self.stats.skipped += 1
        return norm.item()

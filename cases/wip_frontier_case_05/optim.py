"""Optimizer and learning-rate schedule.

The schedule is written in epochs, like the config (`warmup_epochs`, `train.epochs`): a linear
warmup, then a cosine decay to `min_lr_ratio` of the base rate at the last epoch.
"""

import math

import torch


def param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim < 2 or name.startswith("embed") else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": no_decay, "weight_decay": 0.0}]


def build_optimizer(model, ocfg):
    return torch.optim.AdamW(param_groups(model, ocfg.weight_decay), lr=ocfg.lr)


def lr_factor(epoch, epochs, warmup_epochs=0, min_lr_ratio=0.0, kind="cosine"):
    """Multiplier of the base learning rate for `epoch` (0-based)."""
    if kind == "constant":
        return 1.0
    if epoch < warmup_epochs:
        return (epoch + 1) / (warmup_epochs + 1)
    span = max(1, epochs - warmup_epochs - 1)
    progress = min(1.0, (epoch - warmup_epochs) / span)
    if kind == "linear":
        shape = 1.0 - progress
    elif kind == "cosine":
        shape = 0.5 * (1.0 + math.cos(math.pi * progress))
    else:
        raise ValueError(f"unknown schedule {kind!r}")
    return min_lr_ratio + (1.0 - min_lr_ratio) * shape


def build_scheduler(optimizer, ocfg, epochs):
    def factor(epoch):
        return lr_factor(epoch, epochs, ocfg.warmup_epochs, ocfg.min_lr_ratio, ocfg.schedule)

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)

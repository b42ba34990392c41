"""Optimizer and learning-rate schedule from the ``[optim]`` section."""

import math

import torch


def param_groups(model, weight_decay):
    """Weight decay on matrices and embeddings only; biases and norm gains are left alone."""
    decay, no_decay = [], []
    for _, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (decay if p.dim() > 1 else no_decay).append(p)
    groups = [{"params": decay, "weight_decay": weight_decay}]
    if no_decay:
        groups.append({"params": no_decay, "weight_decay": 0.0})
    return groups


def build_optimizer(model, cfg):
    groups = param_groups(model, cfg.weight_decay)
    if cfg.name == "adamw":
        return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, cfg.beta2))
    if cfg.name == "sgd":
        return torch.optim.SGD(groups, lr=cfg.lr, momentum=0.9)
    raise ValueError(f"unknown optimizer {cfg.name!r} (known: adamw, sgd)")


def lr_factor(step, total, warmup, min_ratio):
    """Linear warmup from lr/warmup to lr over ``warmup`` steps, then cosine decay to ``min_ratio * lr``."""
    if warmup > 0 and step < warmup:
        return (step + 1) / warmup
    if min_ratio >= 1.0 or total <= warmup:
        return 1.0
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def build_scheduler(optimizer, cfg, total_steps):
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: lr_factor(step, total_steps, cfg.warmup_steps, cfg.min_lr_ratio))


def current_lr(optimizer):
    return optimizer.param_groups[0]["lr"]

"""Optimizer and learning-rate schedule."""

import math

import torch


def param_groups(model, weight_decay):
    """Weight decay on matrices only (biases are not decayed)."""
    params = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in params if p.ndim >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0}]


def build_optimizer(model, lr, weight_decay):
    return torch.optim.AdamW(param_groups(model, weight_decay), lr=lr, betas=(0.9, 0.99))


def warmup_cosine(optimizer, warmup_steps, total_steps, floor=0.05):
    def factor(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)

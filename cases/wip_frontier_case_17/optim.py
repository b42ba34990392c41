"""Optimizer and learning-rate schedule."""

import math

import torch


def param_groups(model, lr, weight_decay, backbone_lr_scale=1.0):
    """The head at `lr`, the pretrained backbone at `lr * backbone_lr_scale`; weight decay on matrices
    only (biases are not decayed)."""
    groups = []
    for part, scale in ((model.head, 1.0), (model.backbone, backbone_lr_scale)):
        params = [p for p in part.parameters() if p.requires_grad]
        matrices = [p for p in params if p.ndim >= 2]
        vectors = [p for p in params if p.ndim < 2]
        groups.append({"params": matrices, "lr": lr * scale, "weight_decay": weight_decay})
        groups.append({"params": vectors, "lr": lr * scale, "weight_decay": 0.0})
    return [g for g in groups if g["params"]]


def build_optimizer(model, lr, weight_decay, backbone_lr_scale=1.0):
    return torch.optim.AdamW(param_groups(model, lr, weight_decay, backbone_lr_scale), lr=lr, betas=(0.9, 0.99))


def warmup_cosine(optimizer, warmup_steps, total_steps, floor=0.05):
    def factor(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)

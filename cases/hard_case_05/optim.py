"""Optimizers, parameter groups and learning-rate schedules from an OptimConfig."""

import math

import torch


def param_groups(model, weight_decay):
    """Decay matrices (Linear weights, embeddings); leave biases and LayerNorm gains alone."""
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}]
    if no_decay:
        groups.append({"params": no_decay, "weight_decay": 0.0})
    return groups


def build_optimizer(cfg, model):
    groups = param_groups(model, cfg.weight_decay)
    if cfg.name == "sgd":
        return torch.optim.SGD(groups, lr=cfg.lr, momentum=cfg.momentum)
    if cfg.name == "adam":
        return torch.optim.Adam(groups, lr=cfg.lr, betas=tuple(cfg.betas), eps=cfg.eps)
    if cfg.name == "adamw":
        return torch.optim.AdamW(groups, lr=cfg.lr, betas=tuple(cfg.betas), eps=cfg.eps)
    raise ValueError(f"unknown optimizer '{cfg.name}'")


class Schedule:
    """lr as a function of the 0-based step: constant, step decay, or linear warmup + cosine."""

    def __init__(self, cfg, total_steps):
        self.kind, self.peak, self.warmup = cfg.schedule, cfg.lr, cfg.warmup
        self.total, self.min_ratio = total_steps, cfg.min_ratio

    def __call__(self, step):
        if step < self.warmup:
            return self.peak * (step + 1) / self.warmup
        if self.kind == "constant":
            return self.peak
        if self.kind == "step":
            drops = (step - self.warmup) * 3 // max(1, self.total - self.warmup)
            return self.peak * (0.3 ** drops)
        progress = min(1.0, (step - self.warmup) / max(1, self.total - self.warmup))
        return self.peak * (self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))

    def apply(self, optimizer, step):
        lr = self(step)
        for group in optimizer.param_groups:
            group["lr"] = lr
        return lr


def clip_gradients(parameters, max_norm):
    """Total gradient norm before clipping; clips only when max_norm > 0."""
    parameters = [p for p in parameters if p.grad is not None]
    if max_norm > 0:
        return torch.nn.utils.clip_grad_norm_(parameters, max_norm).item()
    if not parameters:
        return 0.0
    return torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in parameters])).item()

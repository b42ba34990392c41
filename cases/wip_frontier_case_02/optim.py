"""Optimizer and learning-rate schedule."""

import math

import torch


def param_groups(model, weight_decay):
    """Weight decay on matrices only (biases and normalization scales are not decayed)."""
    params = [p for p in model.parameters() if p.requires_grad]
    return [{"params": [p for p in params if p.ndim >= 2], "weight_decay": weight_decay},
            {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0}]


class AdamW:
    """AdamW (decoupled weight decay), the update torch.optim.AdamW makes, without its import cost."""

    def __init__(self, groups, lr, betas=(0.9, 0.999), eps=1e-8):
        self.param_groups = [{"lr": lr, "betas": betas, "eps": eps, **g} for g in groups]
        self.state = {}
        for g in self.param_groups:
            g.setdefault("initial_lr", g["lr"])

    def zero_grad(self, set_to_none=True):
        for g in self.param_groups:
            for p in g["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            b1, b2 = g["betas"]
            for p in g["params"]:
                if p.grad is None:
                    continue
                st = self.state.setdefault(p, {"step": 0, "m": torch.zeros_like(p), "v": torch.zeros_like(p)})
                st["step"] += 1
                p.mul_(1 - g["lr"] * g["weight_decay"])
                st["m"].lerp_(p.grad, 1 - b1)
                st["v"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                bc1 = 1 - b1 ** st["step"]
                bc2 = 1 - b2 ** st["step"]
                denom = (st["v"].sqrt() / math.sqrt(bc2)).add_(g["eps"])
                p.addcdiv_(st["m"], denom, value=-g["lr"] / bc1)


class WarmupCosine:
    def __init__(self, optimizer, warmup_steps, total_steps, floor=0.05):
        self.optimizer, self.warmup, self.total, self.floor = optimizer, warmup_steps, total_steps, floor
        self.last = 0
        self._apply()

    def factor(self, step):
        if step < self.warmup:
            return (step + 1) / self.warmup
        progress = min(1.0, (step - self.warmup) / max(1, self.total - self.warmup))
        return self.floor + (1 - self.floor) * 0.5 * (1 + math.cos(math.pi * progress))

    def _apply(self):
        for g in self.optimizer.param_groups:
            g["lr"] = g["initial_lr"] * self.factor(self.last)

    def step(self):
        self.last += 1
        self._apply()


def build_optimizer(model, lr, weight_decay):
    return AdamW(param_groups(model, weight_decay), lr=lr, betas=(0.9, 0.99))

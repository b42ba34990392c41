"""AdamW (decoupled weight decay, written out: the same update as torch.optim.AdamW) and the schedule."""

import math

import torch


class AdamW:
    def __init__(self, params, lr, weight_decay=0.01, betas=(0.9, 0.999), eps=1e-8):
        self.groups = []
        decay, no_decay = [], []
        for name, p in params:
            (decay if p.dim() >= 2 and "pos" not in name and "tok" not in name else no_decay).append(p)
        self.groups = [{"params": decay, "weight_decay": weight_decay},
                       {"params": no_decay, "weight_decay": 0.0}]
        self.lr = lr
        self.base_lr = lr
        self.betas, self.eps = betas, eps
        self.state = {}
        self.t = 0

    def zero_grad(self):
        for g in self.groups:
            for p in g["params"]:
                p.grad = None

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2 = self.betas
        c1, c2 = 1 - b1 ** self.t, 1 - b2 ** self.t
        for g in self.groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                m, v = self.state.setdefault(id(p), (torch.zeros_like(p), torch.zeros_like(p)))
                p.mul_(1 - self.lr * g["weight_decay"])
                m.lerp_(p.grad, 1 - b1)
                v.mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                denom = (v.sqrt() / math.sqrt(c2)).add_(self.eps)
                p.addcdiv_(m, denom, value=-self.lr / c1)


def warmup_cosine(step, warmup, total, floor=0.05):
    if step < warmup:
        return (step + 1) / warmup
    frac = min(1.0, (step - warmup) / max(1, total - warmup))
    return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * frac))

"""The optimizer: AdamW written out (decoupled weight decay), plus the learning-rate schedule.

Written out rather than taken from torch.optim so that the hub's on-device fine-tuning (which has no
torch.optim) runs the same update; `tests/test_optim.py` checks it against torch.optim.AdamW.
"""

import math

import torch


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.state = [{"step": 0, "exp_avg": torch.zeros_like(p), "exp_avg_sq": torch.zeros_like(p)}
                      for p in self.params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        beta1, beta2 = self.betas
        for p, state in zip(self.params, self.state):
            if p.grad is None:
                continue
            state["step"] += 1
            step = state["step"]
            p.mul_(1 - self.lr * self.weight_decay)
            state["exp_avg"].lerp_(p.grad, 1 - beta1)
            state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            step_size = self.lr / (1 - beta1 ** step)
            denom = (state["exp_avg_sq"].sqrt() / math.sqrt(1 - beta2 ** step)).add_(self.eps)
            p.addcdiv_(state["exp_avg"], denom, value=-step_size)

    def state_dict(self):
        return {"lr": self.lr, "state": [{k: (v.clone() if torch.is_tensor(v) else v) for k, v in s.items()}
                                         for s in self.state]}


def clip_grad_norm(params, max_norm):
    """Scale the gradients so that their global L2 norm is at most max_norm; returns the norm before."""
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return 0.0
    norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
    scale = (max_norm / (norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(scale)
    return norm.item()


class WarmupCosine:
    """Linear warmup to the peak learning rate, then cosine decay to 0 at the last step."""

    def __init__(self, peak, warmup_steps, total_steps):
        self.peak, self.warmup, self.total = peak, warmup_steps, total_steps

    def __call__(self, step):
        if step < self.warmup:
            return self.peak * (step + 1) / self.warmup
        progress = (step - self.warmup) / max(1, self.total - self.warmup)
        return self.peak * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))

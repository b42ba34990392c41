"""Adam and AdamW written out (single-tensor form, the same operations as torch.optim's CPU path).

Constructing a torch.optim optimizer imports torch._dynamo, about a second of CPU on every run; these
two classes keep a 6 s training run from paying it twice.
"""

import math

import torch


class Adam:
    """Adam with L2 weight decay added to the gradient (``decoupled=False``) or AdamW's decoupled decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False):
        self.param_groups = [{"params": [p for p in params if p.requires_grad], "lr": lr, "betas": betas,
                              "eps": eps, "weight_decay": weight_decay}]
        self.decoupled = decoupled
        self.state = {}

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if set_to_none:
                    p.grad = None
                elif p.grad is not None:
                    p.grad.zero_()

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            lr, (beta1, beta2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state.setdefault(p, {"step": 0, "exp_avg": torch.zeros_like(p),
                                                  "exp_avg_sq": torch.zeros_like(p)})
                state["step"] += 1
                if wd != 0:
                    if self.decoupled:
                        p.mul_(1 - lr * wd)
                    else:
                        grad = grad.add(p, alpha=wd)
                state["exp_avg"].lerp_(grad, 1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** state["step"]
                bias_correction2_sqrt = math.sqrt(1 - beta2 ** state["step"])
                denom = (state["exp_avg_sq"].sqrt() / bias_correction2_sqrt).add_(eps)
                p.addcdiv_(state["exp_avg"], denom, value=-lr / bias_correction1)


def AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
    """AdamW: Adam with the decay applied to the weights, not the gradient (torch.optim.AdamW's defaults)."""
    return Adam(params, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, decoupled=True)

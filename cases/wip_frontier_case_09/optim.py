"""AdamW and a multiplicative learning-rate schedule, written out.

The same operations as torch.optim.AdamW's single-tensor CPU path and lr_scheduler.LambdaLR, without the
second of start-up that constructing a torch.optim optimizer costs (it imports torch._dynamo).
"""

import math

import torch


class AdamW:
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        self.param_groups = [{"params": [p for p in params if p.requires_grad], "lr": lr, "betas": betas,
                              "eps": eps, "weight_decay": weight_decay}]
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
                p.mul_(1 - lr * wd)
                state["exp_avg"].lerp_(grad, 1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** state["step"]
                bias_correction2_sqrt = math.sqrt(1 - beta2 ** state["step"])
                denom = (state["exp_avg_sq"].sqrt() / bias_correction2_sqrt).add_(eps)
                p.addcdiv_(state["exp_avg"], denom, value=-lr / bias_correction1)


class LambdaSchedule:
    """lr = initial lr x factor(steps taken so far), set on construction and after every step()."""

    def __init__(self, optimizer, factor):
        self.optimizer = optimizer
        self.factor = factor
        self.base_lrs = [g["lr"] for g in optimizer.param_groups]
        self.last_step = 0
        self._apply()

    def _apply(self):
        for g, base in zip(self.optimizer.param_groups, self.base_lrs):
            g["lr"] = base * self.factor(self.last_step)

    def step(self):
        self.last_step += 1
        self._apply()

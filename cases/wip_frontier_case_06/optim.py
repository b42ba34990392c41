"""AdamW with the usual parameter groups, warmup + cosine schedule, gradient clipping."""

import math

import torch

NO_DECAY = ("bias", "LayerNorm.weight", "embeddings.")


def param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        if any(nd in name for nd in NO_DECAY):
            no_decay.append(p)
        else:
            decay.append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]


def build_optimizer(model, optim_cfg):
    groups = param_groups(model, optim_cfg.weight_decay)
    if optim_cfg.name == "adam":
        return torch.optim.Adam(groups, lr=optim_cfg.lr, betas=tuple(optim_cfg.betas), eps=optim_cfg.eps)
    if optim_cfg.name == "sgd":
        return torch.optim.SGD(groups, lr=optim_cfg.lr, momentum=optim_cfg.betas[0], nesterov=True)
    return torch.optim.AdamW(groups, lr=optim_cfg.lr, betas=tuple(optim_cfg.betas), eps=optim_cfg.eps)


def lr_factor(step, total_steps, warmup_steps, schedule="cosine", min_lr_ratio=0.1):
    if warmup_steps > 0 and step < warmup_steps:
        return (step + 1) / warmup_steps
    if schedule == "constant":
        return 1.0
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    if schedule == "linear":
        return min_lr_ratio + (1.0 - min_lr_ratio) * (1.0 - progress)
    return min_lr_ratio + (1.0 - min_lr_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))


def build_scheduler(optimizer, optim_cfg, total_steps):
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: lr_factor(step, total_steps, optim_cfg.warmup_steps, optim_cfg.schedule, optim_cfg.min_lr_ratio),
    )


def clip_gradients(model, max_norm):
    if max_norm and max_norm > 0:
        return float(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm))
    grads = [p.grad.norm() for p in model.parameters() if p.grad is not None]
    return float(torch.stack(grads).norm()) if grads else 0.0


def group_summary(optimizer):
    """(number of tensors, number of values, weight decay) per parameter group."""
    return [(len(g["params"]), sum(p.numel() for p in g["params"]), g["weight_decay"]) for g in optimizer.param_groups]

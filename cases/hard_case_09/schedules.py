"""Learning-rate schedules, as multipliers of the base rate for torch's LambdaLR."""

from __future__ import annotations

import torch


def lr_multiplier(update: int, total_updates: int, warmup_updates: int, decay: str) -> float:
    """Linear warmup from 1/warmup_updates of the rate to the full rate, then constant or linear decay."""
    if warmup_updates > 0 and update < warmup_updates:
        return (update + 1) / warmup_updates
    if decay == "linear":
        span = max(total_updates - warmup_updates, 1)
        return max(0.0, 1.0 - (update - warmup_updates) / span)
    return 1.0


def make_scheduler(optimizer, optim_cfg, total_updates: int):
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda update: lr_multiplier(update, total_updates, optim_cfg.warmup_updates, optim_cfg.decay))


def current_lr(optimizer) -> float:
    return optimizer.param_groups[0]["lr"]

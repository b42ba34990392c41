"""Training objectives, by name (`train.loss`).

Every objective takes the model's predictions, the scaled targets of one batch and optional per-row
weights, and returns the (weighted) batch mean. The forecasts are judged in bikes per hour by their mean absolute error (`metrics.py`).
"""

import torch.nn.functional as F


def _mean(per_row, weight):
    if weight is None:
        return per_row.mean()
    return (per_row * weight).sum() / weight.sum()


def mse(pred, target, weight=None):
    return _mean(F.mse_loss(pred, target, reduction="none"), weight)


def mae(pred, target, weight=None):
    return _mean(F.l1_loss(pred, target, reduction="none"), weight)


def huber(pred, target, weight=None, delta=0.1):
    return _mean(F.huber_loss(pred, target, reduction="none", delta=delta), weight)


LOSSES = {"mse": mse, "mae": mae, "huber": huber}


def build_loss(name):
    if name not in LOSSES:
        raise KeyError(f"unknown loss {name!r}; known: {sorted(LOSSES)}")
    return LOSSES[name]

"""Training objectives, by name (`train.loss`).

Every objective takes the model's predictions and the scaled targets of one batch and returns the
batch mean. The forecasts are judged in bikes per hour by their mean absolute error (`metrics.py`).
"""

import torch.nn.functional as F


def mse(pred, target):
    return F.mse_loss(pred, target)


def mae(pred, target):
    return F.l1_loss(pred, target)


def huber(pred, target, delta=0.1):
    return F.huber_loss(pred, target, delta=delta)


LOSSES = {"mse": mse, "mae": mae, "huber": huber}


def build_loss(name):
    if name not in LOSSES:
        raise KeyError(f"unknown loss {name!r}; known: {sorted(LOSSES)}")
    return LOSSES[name]

"""Numbers for the training dashboard (one row per logged step)."""

import math

import torch


@torch.no_grad()
def param_norm(model):
    return math.sqrt(sum(p.pow(2).sum().item() for p in model.parameters()))


@torch.no_grad()
def update_ratios(model, lr):
    """log10 of (update scale / parameter scale) for every weight matrix.

    Rule of thumb: around -3 is healthy; much lower means the layer is barely learning,
    much higher means the steps are too large for the weights.
    """
    ratios = {}
    for name, p in model.named_parameters():
        if p.ndim == 2 and p.grad is not None:
            ratios[name] = ((lr * p.grad).std() / p.std()).log10().item()
    return ratios

"""Precise BatchNorm statistics (Wu & Johnson, "Rethinking Batch in BatchNorm", 2021).

During training a BatchNorm layer keeps momentum averages of the batch statistics, and those
lag the weights: the early batches of an epoch were normalized by a network that no longer
exists. Before validating, the statistics are recomputed with the current weights from a
number of clean (unaugmented) training batches, and the per-batch means and variances are
averaged with equal weight.
"""

import torch
import torch.nn as nn


def batchnorm_layers(model):
    return [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]


@torch.no_grad()
def precise_statistics(model, batches):
    """Per BatchNorm layer, (mean, unbiased variance) of its input, averaged over ``batches``."""
    layers = batchnorm_layers(model)
    sums = {id(m): [0.0, 0.0] for m in layers}

    def record(module, inputs):
        x = inputs[0]
        dims = [d for d in range(x.dim()) if d != 1]
        sums[id(module)][0] = sums[id(module)][0] + x.mean(dim=dims)
        sums[id(module)][1] = sums[id(module)][1] + x.var(dim=dims, unbiased=True)

    handles = [m.register_forward_pre_hook(record) for m in layers]
    was_training = model.training
    model.train()  # every layer normalizes with its batch's statistics, as the weights were trained
    n = 0
    try:
        for x in batches:
            model(x)
            n += 1
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    if n == 0:
        return {}
    return {m: (sums[id(m)][0] / n, sums[id(m)][1] / n) for m in layers}


def recompute_batchnorm(model, batches):
    """Replaces every BatchNorm layer's running statistics by ``precise_statistics``; returns
    the number of layers updated."""
    stats = precise_statistics(model, batches)
    for layer, (mean, var) in stats.items():
        layer.running_mean = mean
        layer.running_var = var
    return len(stats)

"""Family: a weight average (EMA) whose BatchNorm buffers stop following the model.

Shared by the cases whose evaluated model is an exponential moving average of a BatchNorm
network's state. The deciding half rebuilds the network and the training features itself and
asks whether the averaged model's running statistics describe the averaged weights: for every
BatchNorm layer, the statistics of that layer's input, computed here with the averaged weights
over the clean training split (batches of the training size, train-mode forward, as training
and precise BatchNorm estimate them), against the buffers the checkpoint holds.
"""

import math

import torch
import torch.nn as nn


def batchnorm_layers(model):
    return [(name, m) for name, m in model.named_modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]


@torch.no_grad()
def input_statistics(model, x, batch_size, dropout_seed=0):
    """{layer name: (mean, unbiased var)} of each BatchNorm layer's input, averaged over batches of
    ``x``, in a train-mode forward (batch statistics, dropout on with a fixed generator state)."""
    layers = batchnorm_layers(model)
    sums = {name: [0.0, 0.0] for name, _ in layers}
    handles = []
    for name, layer in layers:
        def hook(module, inputs, name=name):
            t = inputs[0]
            dims = [d for d in range(t.dim()) if d != 1]
            sums[name][0] = sums[name][0] + t.mean(dim=dims)
            sums[name][1] = sums[name][1] + t.var(dim=dims, unbiased=True)
        handles.append(layer.register_forward_pre_hook(hook))
    saved = {name: (m.running_mean.clone(), m.running_var.clone(), m.num_batches_tracked.clone()) for name, m in layers}
    torch.manual_seed(dropout_seed)
    model.train()
    n = 0
    try:
        for start in range(0, len(x) - batch_size + 1, batch_size):
            model(x[start:start + batch_size])
            n += 1
    finally:
        for h in handles:
            h.remove()
        for name, m in layers:
            m.running_mean.copy_(saved[name][0])
            m.running_var.copy_(saved[name][1])
            m.num_batches_tracked.copy_(saved[name][2])
        model.eval()
    return {name: (s[0] / n, s[1] / n) for name, s in sums.items()}


def buffer_mismatch(model, stats):
    """{layer: (mean shift in standard deviations, |log variance ratio|)}, each averaged over the
    layer's channels: how far the model's running buffers are from ``stats``."""
    out = {}
    for name, m in batchnorm_layers(model):
        mean, var = stats[name]
        shift = ((m.running_mean - mean).abs() / var.clamp_min(1e-8).sqrt()).mean().item()
        log_ratio = (m.running_var.clamp_min(1e-8) / var.clamp_min(1e-8)).log().abs().mean().item()
        out[name] = (shift, log_ratio)
    return out


def worst_mismatch(mismatch):
    """(largest mean shift, largest |log variance ratio|) over the layers (nan when there is none)."""
    shifts = [a for a, _ in mismatch.values()]
    ratios = [b for _, b in mismatch.values()]
    if not shifts or not all(math.isfinite(v) for v in shifts + ratios):
        return float("nan"), float("nan")
    return max(shifts), max(ratios)

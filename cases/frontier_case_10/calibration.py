"""Softmax temperature for the alert system, fitted on held-out records by minimizing the NLL."""

import math

import torch
import torch.nn.functional as F


@torch.no_grad()
def collect_logits(model, loader):
    was_training = model.training
    model.eval()
    logits, labels = [], []
    for x, y in loader:
        logits.append(model(x))
        labels.append(y)
    model.train(was_training)
    return torch.cat(logits), torch.cat(labels)


def nll(logits, labels, temperature):
    return float(F.cross_entropy(logits / temperature, labels))


def fit_temperature(model, loader, low=0.25, high=8.0, iters=40):
    """Golden-section search of the temperature on a log scale; returns (t, nll at 1, nll at t)."""
    logits, labels = collect_logits(model, loader)
    g = (math.sqrt(5) - 1) / 2
    a, b = math.log(low), math.log(high)
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = nll(logits, labels, math.exp(c)), nll(logits, labels, math.exp(d))
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = nll(logits, labels, math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = nll(logits, labels, math.exp(d))
    t = math.exp((a + b) / 2)
    return t, nll(logits, labels, 1.0), nll(logits, labels, t)


def expected_calibration_error(logits, labels, bins=10):
    probs = F.softmax(logits, dim=1)
    conf, pred = probs.max(dim=1)
    ece = 0.0
    edges = torch.linspace(0, 1, bins + 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        mask = (conf > lo) & (conf <= hi)
        if mask.any():
            acc = (pred[mask] == labels[mask]).float().mean()
            ece += float(mask.float().mean() * (conf[mask].mean() - acc).abs())
    return ece

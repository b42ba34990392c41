"""Validation metrics. Every function takes the model's class scores for a batch of windows."""

import math

import torch
import torch.nn.functional as F


def accuracy(scores, y):
    return (scores.argmax(dim=-1) == y).float().mean().item()


def predictive_entropy(scores):
    """Mean entropy (nats) of the predicted class distribution; ln(C) means 'no idea'."""
    logp = F.log_softmax(scores, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1).mean().item()


def max_entropy(n_classes):
    return math.log(n_classes)


def confusion_matrix(scores, y, n_classes):
    pred = scores.argmax(dim=-1)
    cm = torch.zeros(n_classes, n_classes, dtype=torch.long)
    cm.index_put_((y, pred), torch.ones_like(y), accumulate=True)
    return cm


def macro_f1(scores, y, n_classes):
    cm = confusion_matrix(scores, y, n_classes).float()
    tp = cm.diag()
    precision = tp / cm.sum(dim=0).clamp_min(1)
    recall = tp / cm.sum(dim=1).clamp_min(1)
    f1 = 2 * precision * recall / (precision + recall).clamp_min(1e-12)
    return f1.mean().item()


def expected_calibration_error(scores, y, n_bins=10):
    """|confidence - accuracy| averaged over equal-width confidence bins, weighted by bin size."""
    probs = F.softmax(scores, dim=-1)
    confidence, pred = probs.max(dim=-1)
    correct = (pred == y).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        in_bin = (confidence > lo) & (confidence <= hi)
        if in_bin.any():
            ece += in_bin.float().mean() * (confidence[in_bin].mean() - correct[in_bin].mean()).abs()
    return ece.item()


def summarize(scores, y, n_classes):
    return {
        "val_acc": accuracy(scores, y),
        "f1": macro_f1(scores, y, n_classes),
        "ece": expected_calibration_error(scores, y),
        "entropy": predictive_entropy(scores),
    }

"""Metrics over class log-probabilities of a whole evaluation set."""

import torch
import torch.nn.functional as F


def nll(logp, labels):
    return F.nll_loss(logp, labels).item()


def accuracy(logp, labels):
    return (logp.argmax(dim=-1) == labels).float().mean().item()


def top_k_accuracy(logp, labels, k=5):
    top = logp.topk(min(k, logp.shape[-1]), dim=-1).indices
    return (top == labels[:, None]).any(dim=-1).float().mean().item()


def expected_calibration_error(logp, labels, n_bins=10):
    """Gap between confidence and accuracy, averaged over equal-width confidence bins."""
    conf, preds = logp.exp().max(dim=-1)
    correct = (preds == labels).float()
    ece = 0.0
    edges = torch.linspace(0, 1, n_bins + 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (conf > lo) & (conf <= hi)
        if inside.any():
            ece += inside.float().mean().item() * abs(conf[inside].mean().item() - correct[inside].mean().item())
    return ece


def most_confused(logp, labels, n=5):
    """The ``n`` (true, predicted) class pairs with the most errors, as (true, pred, count)."""
    preds = logp.argmax(dim=-1)
    wrong = preds != labels
    pairs = torch.stack([labels[wrong], preds[wrong]], dim=1)
    if len(pairs) == 0:
        return []
    uniq, counts = pairs.unique(dim=0, return_counts=True)
    order = counts.argsort(descending=True)[:n]
    return [(int(uniq[i, 0]), int(uniq[i, 1]), int(counts[i])) for i in order]


def summarize(logp, labels):
    return {"loss": nll(logp, labels), "acc": accuracy(logp, labels), "top5": top_k_accuracy(logp, labels),
            "ece": expected_calibration_error(logp, labels)}

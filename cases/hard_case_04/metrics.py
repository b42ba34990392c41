"""Classification metrics over a whole evaluation set."""

import math

import torch
import torch.nn.functional as F


def nll(logits, labels):
    return F.cross_entropy(logits, labels).item()


def accuracy(logits, labels):
    return (logits.argmax(dim=-1) == labels).float().mean().item()


def confusion_matrix(preds, labels, n_classes):
    """Rows are true classes, columns predicted classes."""
    flat = torch.bincount(labels * n_classes + preds, minlength=n_classes * n_classes)
    return flat.reshape(n_classes, n_classes)


def macro_f1(preds, labels, n_classes):
    cm = confusion_matrix(preds, labels, n_classes).float()
    tp = cm.diag()
    precision = tp / cm.sum(dim=0).clamp_min(1)
    recall = tp / cm.sum(dim=1).clamp_min(1)
    f1 = 2 * precision * recall / (precision + recall).clamp_min(1e-12)
    return f1.mean().item()


def expected_calibration_error(logits, labels, n_bins=10):
    """Gap between confidence and accuracy, averaged over equal-width confidence bins."""
    probs = logits.softmax(dim=-1)
    conf, preds = probs.max(dim=-1)
    correct = (preds == labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    ece = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (conf > lo) & (conf <= hi)
        if inside.any():
            ece += inside.float().mean().item() * abs(conf[inside].mean().item() - correct[inside].mean().item())
    return ece


def summarize(logits, labels, n_classes):
    """Every metric of one evaluation, as plain floats."""
    preds = logits.argmax(dim=-1)
    return {
        "loss": nll(logits, labels),
        "acc": accuracy(logits, labels),
        "macro_f1": macro_f1(preds, labels, n_classes),
        "ece": expected_calibration_error(logits, labels),
        "chance_loss": math.log(n_classes),
    }


def format_confusion(cm, names):
    width = max(len(n) for n in names) + 2
    lines = [" " * width + "".join(f"{n:>{width}}" for n in names)]
    for name, row in zip(names, cm.tolist()):
        lines.append(f"{name:>{width}}" + "".join(f"{v:>{width}}" for v in row))
    return "\n".join(lines)

"""Classification metrics computed from logits: accuracy, macro F1, per-class recall,
per-instrument accuracy and expected calibration error."""

import torch
import torch.nn.functional as F


def accuracy(logits, y):
    return (logits.argmax(dim=-1) == y).float().mean().item()


def confusion_matrix(logits, y, n_classes):
    pred = logits.argmax(dim=-1)
    cm = torch.zeros(n_classes, n_classes, dtype=torch.long)
    cm.index_put_((y, pred), torch.ones_like(y), accumulate=True)
    return cm


def per_class_recall(logits, y, n_classes):
    cm = confusion_matrix(logits, y, n_classes).float()
    return (cm.diag() / cm.sum(dim=1).clamp_min(1)).tolist()


def macro_f1(logits, y, n_classes):
    cm = confusion_matrix(logits, y, n_classes).float()
    tp = cm.diag()
    precision = tp / cm.sum(dim=0).clamp_min(1)
    recall = tp / cm.sum(dim=1).clamp_min(1)
    f1 = 2 * precision * recall / (precision + recall).clamp_min(1e-12)
    return f1.mean().item()


def per_group_accuracy(logits, y, groups):
    correct = (logits.argmax(dim=-1) == y).float()
    return {int(g): correct[groups == g].mean().item() for g in torch.unique(groups)}


def confidence(logits):
    """Probability the model gives its own prediction."""
    return F.softmax(logits, dim=-1).max(dim=-1).values


def expected_calibration_error(logits, y, n_bins=10):
    """Gap between confidence and accuracy, averaged over equal-width confidence bins."""
    probs = torch.softmax(logits.float(), dim=-1)
    conf, pred = probs.max(dim=-1)
    correct = (pred == y).float()
    edges = torch.linspace(0.0, 1.0, n_bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        in_bin = (conf > lo) & (conf <= hi)
        if in_bin.any():
            ece += in_bin.float().mean() * (conf[in_bin].mean() - correct[in_bin].mean()).abs()
    return ece.item()


def summarize(loss, logits, y, instrument, n_classes, ece_bins):
    return {
        "loss": loss,
        "acc": accuracy(logits, y),
        "f1": macro_f1(logits, y, n_classes),
        "ece": expected_calibration_error(logits, y, ece_bins),
        "recall": per_class_recall(logits, y, n_classes),
        "instrument_acc": per_group_accuracy(logits, y, instrument),
    }

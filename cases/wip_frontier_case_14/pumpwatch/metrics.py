"""Classification metrics from predictions (no sklearn on the plant's edge boxes)."""

import torch


def confusion(pred, target, n_classes):
    idx = target * n_classes + pred
    return torch.bincount(idx, minlength=n_classes * n_classes).reshape(n_classes, n_classes)


def per_class_recall(cm):
    return (cm.diag().float() / cm.sum(dim=1).clamp_min(1).float()).tolist()


def per_class_precision(cm):
    return (cm.diag().float() / cm.sum(dim=0).clamp_min(1).float()).tolist()


def macro_f1(cm):
    tp = cm.diag().float()
    prec = tp / cm.sum(dim=0).clamp_min(1).float()
    rec = tp / cm.sum(dim=1).clamp_min(1).float()
    f1 = torch.where(prec + rec > 0, 2 * prec * rec / (prec + rec).clamp_min(1e-12), torch.zeros_like(tp))
    return f1.mean().item()


def accuracy(cm):
    return (cm.diag().sum().float() / cm.sum().clamp_min(1).float()).item()


def summarize(logits, target, n_classes):
    cm = confusion(logits.argmax(dim=1), target, n_classes)
    return {"acc": accuracy(cm), "f1": macro_f1(cm), "recall": per_class_recall(cm), "confusion": cm.tolist()}

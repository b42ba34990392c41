"""Classification metrics on logits and labels."""

import torch
import torch.nn.functional as F


def confusion(pred, labels, n_classes):
    idx = labels * n_classes + pred
    return torch.bincount(idx, minlength=n_classes * n_classes).reshape(n_classes, n_classes)


def summarize(logits, labels, n_classes):
    pred = logits.argmax(dim=1)
    cm = confusion(pred, labels, n_classes)
    support = cm.sum(dim=1).clamp_min(1)
    recall = cm.diag().float() / support.float()
    return {"loss": F.cross_entropy(logits, labels).item(),
            "acc": (pred == labels).float().mean().item(),
            "recall": recall.tolist(),
            "confusion": cm.tolist()}


def format_recalls(classes, recall):
    return "  ".join(f"{c} {r:.2f}" for c, r in zip(classes, recall))

"""Classification metrics over a full evaluation pass."""

import numpy as np
import torch
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader, n_classes):
    was_training = model.training
    model.eval()
    losses, preds, targets = [], [], []
    for x, y in loader:
        logits = model(x)
        losses.append(F.cross_entropy(logits, y, reduction="sum").item())
        preds.append(logits.argmax(-1))
        targets.append(y)
    model.train(was_training)
    preds, targets = torch.cat(preds).numpy(), torch.cat(targets).numpy()
    confusion = np.zeros((n_classes, n_classes), dtype=np.int64)
    np.add.at(confusion, (targets, preds), 1)
    recall = confusion.diagonal() / np.maximum(confusion.sum(1), 1)
    return {
        "loss": sum(losses) / len(targets),
        "acc": float((preds == targets).mean()),
        "recall": recall,
        "bal_acc": float(recall.mean()),
        "confusion": confusion,
    }


def per_class_f1(confusion):
    tp = confusion.diagonal().astype(np.float64)
    precision = tp / np.maximum(confusion.sum(0), 1)
    recall = tp / np.maximum(confusion.sum(1), 1)
    return np.where(precision + recall > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0.0)


def macro_f1(confusion):
    return float(per_class_f1(confusion).mean())

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


def macro_f1(confusion_rows):
    """Mean over classes of 2 precision recall / (precision + recall), from a confusion matrix
    (rows: true class, columns: predicted)."""
    cm = torch.as_tensor(confusion_rows, dtype=torch.float64)
    tp = cm.diag()
    precision = tp / cm.sum(dim=0).clamp_min(1)
    recall = tp / cm.sum(dim=1).clamp_min(1)
    f1 = 2 * precision * recall / (precision + recall).clamp_min(1e-12)
    return f1.mean().item()


def top_confusions(confusion_rows, classes, k=3):
    """The k largest off-diagonal cells as (true, predicted, count)."""
    cells = [(classes[i], classes[j], int(v)) for i, row in enumerate(confusion_rows)
             for j, v in enumerate(row) if i != j and v]
    return sorted(cells, key=lambda c: -c[2])[:k]

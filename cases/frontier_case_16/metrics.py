"""Classification metrics from a confusion matrix."""

import torch


def confusion(preds, labels, n_classes):
    cm = torch.zeros(n_classes, n_classes, dtype=torch.long)
    cm.index_put_((labels, preds), torch.ones_like(labels), accumulate=True)
    return cm  # rows: true class, columns: predicted


def per_class(cm, names):
    out = {}
    for i, name in enumerate(names):
        tp = cm[i, i].item()
        support = cm[i].sum().item()
        predicted = cm[:, i].sum().item()
        recall = tp / support if support else 0.0
        precision = tp / predicted if predicted else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out[name] = {"recall": recall, "precision": precision, "f1": f1, "support": support}
    return out


def summary(cm, names):
    classes = per_class(cm, names)
    accuracy = cm.diag().sum().item() / max(cm.sum().item(), 1)
    macro_f1 = sum(c["f1"] for c in classes.values()) / len(classes)
    return {"accuracy": accuracy, "macro_f1": macro_f1, "classes": classes}


def format_report(report, title="val"):
    lines = [f"{title:14s} recall  precision   f1   sessions"]
    for name, c in report["classes"].items():
        lines.append(f"  {name:12s} {c['recall']:6.3f}  {c['precision']:6.3f}  {c['f1']:6.3f}  {c['support']:5d}")
    lines.append(f"  accuracy {report['accuracy']:.3f}  macro-f1 {report['macro_f1']:.3f}")
    return "\n".join(lines)

"""Classification metrics for the router: per-queue precision/recall/F1, accuracy, macro-F1, confusion."""

import torch


def confusion(pred, target, n_classes):
    idx = target * n_classes + pred
    return torch.bincount(idx, minlength=n_classes * n_classes).view(n_classes, n_classes)


def per_class(pred, target, names):
    cm = confusion(pred, target, len(names)).double()
    tp = cm.diag()
    support = cm.sum(1)
    predicted = cm.sum(0)
    recall = tp / support.clamp_min(1)
    precision = tp / predicted.clamp_min(1)
    f1 = 2 * precision * recall / (precision + recall).clamp_min(1e-12)
    return {name: {"n": int(support[i]), "precision": float(precision[i]), "recall": float(recall[i]),
                   "f1": float(f1[i])} for i, name in enumerate(names)}


def summarize(pred, target, names):
    table = per_class(pred, target, names)
    acc = float((pred == target).double().mean()) if len(target) else 0.0
    macro_f1 = sum(v["f1"] for v in table.values()) / len(table)
    return {"accuracy": acc, "macro_f1": macro_f1, "per_queue": table}


def format_report(summary, rare=()):
    lines = [f"{'queue':16s} {'n':>4s} {'precision':>9s} {'recall':>7s} {'f1':>6s}"]
    for name, v in summary["per_queue"].items():
        mark = " *" if name in rare else ""
        lines.append(f"{name:16s} {v['n']:4d} {v['precision']:9.3f} {v['recall']:7.3f} {v['f1']:6.3f}{mark}")
    lines.append(f"accuracy {summary['accuracy']:.3f} | macro-F1 {summary['macro_f1']:.3f}")
    return "\n".join(lines)

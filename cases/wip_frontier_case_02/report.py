"""Markdown reports of an evaluation: the confusion matrix and per-state precision / recall."""

import numpy as np


def confusion_markdown(confusion, classes):
    head = "| true \\ predicted | " + " | ".join(classes) + " |"
    rule = "|---|" + "---|" * len(classes)
    rows = [f"| {c} | " + " | ".join(str(int(v)) for v in confusion[i]) + " |" for i, c in enumerate(classes)]
    return "\n".join([head, rule] + rows)


def per_state_markdown(confusion, classes):
    tp = confusion.diagonal().astype(np.float64)
    precision = tp / np.maximum(confusion.sum(0), 1)
    recall = tp / np.maximum(confusion.sum(1), 1)
    lines = ["| state | windows | precision | recall |", "|---|---|---|---|"]
    for i, c in enumerate(classes):
        lines.append(f"| {c} | {int(confusion[i].sum())} | {precision[i]:.3f} | {recall[i]:.3f} |")
    return "\n".join(lines)


def write_report(path, title, confusion, classes, extra=None):
    parts = [f"# {title}", "", per_state_markdown(confusion, classes), "", confusion_markdown(confusion, classes)]
    for key, value in (extra or {}).items():
        parts.append(f"- {key}: {value:.4g}" if isinstance(value, float) else f"- {key}: {value}")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")

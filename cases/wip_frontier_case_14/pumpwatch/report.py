"""Plain-text tables for evaluation output and run comparisons."""


def _ratio(num, den):
    return num / den if den else 0.0


def per_class_table(cm, classes):
    """Rows of (class, support, precision, recall, f1) from a confusion matrix (rows: true class)."""
    rows = []
    for i, name in enumerate(classes):
        tp = cm[i][i]
        support = sum(cm[i])
        predicted = sum(row[i] for row in cm)
        precision, recall = _ratio(tp, predicted), _ratio(tp, support)
        f1 = _ratio(2 * precision * recall, precision + recall)
        rows.append((name, support, precision, recall, f1))
    return rows


def format_per_class(cm, classes):
    width = max(len(c) for c in classes)
    lines = [f"  {'class':<{width}}  support  precision  recall     f1"]
    for name, support, precision, recall, f1 in per_class_table(cm, classes):
        lines.append(f"  {name:<{width}}  {support:7d}  {precision:9.3f}  {recall:6.3f}  {f1:5.3f}")
    return "\n".join(lines)


def format_confusion(cm, classes):
    """The confusion matrix with abbreviated class names as column heads (rows: true, columns: predicted)."""
    heads = [c[:5] for c in classes]
    width = max(len(c) for c in classes)
    lines = [" " * (width + 4) + " ".join(f"{h:>6}" for h in heads)]
    for name, row in zip(classes, cm):
        lines.append(f"  {name:<{width}}  " + " ".join(f"{v:6d}" for v in row))
    return "\n".join(lines)


def read_metrics(path):
    """The rows of a run's metrics.jsonl, as dicts."""
    import json
    from pathlib import Path

    rows = []
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if line:
            rows.append(json.loads(line))
    return rows


def compare_table(runs, keys=("train_loss", "val_loss", "val_f1")):
    """Side-by-side rows per epoch for several runs: {name: rows} -> lines of text."""
    names = list(runs)
    epochs = sorted({r["epoch"] for rows in runs.values() for r in rows})
    head = "epoch | " + " | ".join(f"{n}:{k}" for n in names for k in keys)
    lines = [head]
    for e in epochs:
        cells = []
        for n in names:
            row = next((r for r in runs[n] if r["epoch"] == e), None)
            cells += [f"{row[k]:.4f}" if row and k in row else "-" for k in keys]
        lines.append(f"{e:5d} | " + " | ".join(cells))
    return lines

"""The run report: a short markdown file next to the exported model, for the data team's review."""

from pathlib import Path

from har.calibration import reliability
from har.data.synth import ACTIVITIES
from har.evaluate import per_class_accuracy, predict
from har.metrics import confusion_matrix, summarize


def confusion_table(cm, names):
    width = max(len(n) for n in names)
    head = " " * (width + 2) + " ".join(f"{n[:5]:>5}" for n in names)
    rows = [head]
    for name, counts in zip(names, cm.tolist()):
        rows.append(f"{name:>{width}}  " + " ".join(f"{c:5d}" for c in counts))
    return "\n".join(rows)


def reliability_table(rows):
    lines = ["| confidence | accuracy | windows |", "|---|---|---|"]
    lines += [f"| {conf:.2f} | {acc:.2f} | {n} |" for conf, acc, n in rows]
    return "\n".join(lines)


def build_report(model, splits, cfg, temperature=1.0, history=()):
    """The report's markdown: headline metrics, per-class accuracy, confusion matrix, reliability."""
    n_classes = cfg.data.n_classes
    names = list(ACTIVITIES[:n_classes])
    scores = predict(model, splits.x_val)
    metrics = summarize(scores, splits.y_val, n_classes)
    per_class = per_class_accuracy(model, splits.x_val, splits.y_val, n_classes)
    lines = [f"# {cfg.name}", "",
             f"model `{cfg.model.name}`, {cfg.train.steps} steps, seed {cfg.train.seed}", "",
             "| metric | value |", "|---|---|"]
    lines += [f"| {k} | {v:.4f} |" for k, v in metrics.items()]
    if history:
        lines.append(f"| final train loss | {history[-1]['loss']:.4f} |")
    lines += ["", "## Per-class accuracy", ""]
    lines += [f"- {name}: {acc:.3f}" for name, acc in zip(names, per_class)]
    lines += ["", "## Confusion matrix (rows: truth)", "", "```",
              confusion_table(confusion_matrix(scores, splits.y_val, n_classes), names), "```", ""]
    lines += [f"## Reliability (temperature {temperature:.3f})", "",
              reliability_table(reliability(scores, splits.y_val, temperature))]
    return "\n".join(lines) + "\n"


def write_report(model, splits, cfg, temperature=1.0, history=()):
    path = Path(cfg.train.out_dir) / "report.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(build_report(model, splits, cfg, temperature, history))
    return path

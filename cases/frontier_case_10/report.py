"""A markdown report of one evaluation: scores, per-class recall and precision, the confusion matrix."""

from datetime import datetime, timezone
from pathlib import Path


def write_report(path, title, confusion, classes, scores, per_class=None):
    lines = [f"# {title}", "", f"_written {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC_", ""]
    lines += ["| score | value |", "|---|---|"]
    lines += [f"| {k} | {v:.4f} |" for k, v in scores.items()]
    if per_class:
        lines += ["", "| class | recall | precision |", "|---|---|---|"]
        lines += [f"| {c} | {r:.3f} | {p:.3f} |" for c, (r, p) in per_class.items()]
    lines += ["", "| true \\ predicted | " + " | ".join(classes) + " |", "|---" * (len(classes) + 1) + "|"]
    for c, row in zip(classes, confusion):
        lines.append(f"| {c} | " + " | ".join(str(int(v)) for v in row) + " |")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("\n".join(lines) + "\n")
    return path

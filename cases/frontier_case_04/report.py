"""Write a short markdown report of a run saved with --set train.out_dir=...

    python report.py runs/x > runs/x/report.md
"""

import json
import sys
from pathlib import Path

COHORTS = {"acc_cohort_2024a": "adults", "acc_cohort_2025b": "juveniles"}


def best_epoch(history, key="acc"):
    return max(history, key=lambda r: r[key])


def render(history, title):
    final = history[-1]
    best = best_epoch(history)
    lines = [f"# {title}", "",
             f"- epochs: {final['epoch']} ({final['step']} steps)",
             f"- final val acc {final['acc']:.4f} (best {best['acc']:.4f} at epoch {best['epoch']})",
             f"- final val loss {final['loss']:.4f}, train acc {final['train_acc']:.4f}", "",
             "| length | val acc |", "|---|---|"]
    for name in ("short", "medium", "long"):
        lines.append(f"| {name} | {final['acc_' + name]:.4f} |")
    lines += ["", "| cohort | val acc |", "|---|---|"]
    for key, name in COHORTS.items():
        if key in final:
            lines.append(f"| {name} | {final[key]:.4f} |")
    lines += ["", "| epoch | train loss | val loss | val acc |", "|---|---|---|---|"]
    for r in history:
        lines.append(f"| {r['epoch']} | {r['train_loss']:.4f} | {r['loss']:.4f} | {r['acc']:.4f} |")
    return "\n".join(lines) + "\n"


def main(run_dir):
    history = json.loads((Path(run_dir) / "history.json").read_text())
    sys.stdout.write(render(history, f"Run {Path(run_dir).name}"))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])

"""Write a Markdown report of an exported run: the training curve every few epochs, the per-class
recall and F1, the largest confusions and the calibration error, for the weekly yield review.

    python report.py --config configs/cnn.toml --run runs/cnn [--out report.md]
"""

import argparse
import json
from pathlib import Path

import torch

from calibration import expected_calibration_error
from config import load_config
from metrics import macro_f1, summarize, top_confusions
from models import build_model
from preprocess import Standardizer, prepare
from wafers import load_export


def curve_table(history, every=5):
    lines = ["| epoch | train loss | train acc | val loss | val acc |", "|---:|---:|---:|---:|---:|"]
    for row in history[::every] + ([history[-1]] if (len(history) - 1) % every else []):
        lines.append(f"| {row['epoch']} | {row['train_loss']:.3f} | {row['train_acc']:.3f} | "
                     f"{row['val_loss']:.3f} | {row['val_acc']:.3f} |")
    return "\n".join(lines)


def class_table(classes, summary):
    lines = ["| class | recall | maps |", "|---|---:|---:|"]
    for c, r, row in zip(classes, summary["recall"], summary["confusion"]):
        lines.append(f"| {c} | {r:.2f} | {sum(row)} |")
    return "\n".join(lines)


def build_report(cfg, run_dir):
    run_dir = Path(run_dir)
    history = json.loads((run_dir / "history.json").read_text())
    train, val, classes = load_export(cfg.data.path)
    scale = Standardizer(prepare(train, cfg.data.grid))
    x = torch.from_numpy(scale(prepare(val, cfg.data.grid))).unsqueeze(1)
    model = build_model(cfg.model, len(classes), side=x.shape[-1])
    model.load_state_dict(torch.load(run_dir / "model.pt"))
    model.eval()
    with torch.no_grad():
        logits = model(x)
    labels = torch.as_tensor(val.labels)
    s = summarize(logits, labels, len(classes))
    parts = [f"# {cfg.name}: validation report", "",
             f"val loss {s['loss']:.3f}, accuracy {s['acc']:.3f}, macro F1 {macro_f1(s['confusion']):.3f}, "
             f"ECE {expected_calibration_error(logits, labels):.3f}", "", "## Training curve", "",
             curve_table(history), "", "## Classes", "", class_table(classes, s), "", "## Largest confusions", ""]
    parts += [f"- {t} taken for {p}: {n} maps" for t, p, n in top_confusions(s["confusion"], classes, k=5)]
    return "\n".join(parts) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/cnn.toml")
    parser.add_argument("--run", required=True)
    parser.add_argument("--out", default="")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args(argv)
    text = build_report(load_config(args.config, args.set), args.run)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()

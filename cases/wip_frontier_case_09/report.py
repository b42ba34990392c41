"""Write a run's metrics next to its checkpoint, and read them back (tools/compare_runs.py uses this)."""

import json
from pathlib import Path

import numpy as np

from export import TAGS
from metrics import f1s, precisions, recalls


def metrics_record(history, cfg):
    """A JSON-able summary: the final confusion matrix, per-tag recall/precision/F1, the logged curve."""
    final = history[-1]
    conf = np.asarray(final["confusion"])
    return {
        "seed": cfg.train.seed,
        "epochs": cfg.train.epochs,
        "val_runs": cfg.data.val_runs,
        "frame_acc": float(final["acc"]),
        "confusion": conf.tolist(),
        "recall": dict(zip(TAGS, map(float, recalls(conf)))),
        "precision": dict(zip(TAGS, map(float, precisions(conf)))),
        "f1": dict(zip(TAGS, map(float, f1s(conf)))),
        "curve": [{"epoch": h["epoch"], "step": h["step"], "train_loss": h["train_loss"],
                   "val_loss": h["loss"], "val_acc": h["acc"]} for h in history],
    }


def write_metrics(out_dir, history, cfg):
    path = Path(out_dir) / "metrics.json"
    path.write_text(json.dumps(metrics_record(history, cfg), indent=1))
    return path


def read_metrics(path):
    path = Path(path)
    if path.is_dir():
        path = path / "metrics.json"
    return json.loads(path.read_text())

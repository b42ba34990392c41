"""Evaluate a saved tagger on the held-out runs: frame metrics and span-level (defect) recall per run.

    python train.py --set train.out_dir=runs/s0
    python evaluate.py runs/s0 [--config configs/ili.toml] [--min-overlap 0.5]
"""

import argparse
import contextlib
import io
from pathlib import Path

import numpy as np
import torch

from batching import frame_mask
from config import load_config
from export import TAGS
from metrics import f1s, recalls
from model import FrameTagger
from spans import span_counts
from train import build_datasets


@torch.no_grad()
def predict(model, dataset, batch_size=32):
    """Per-segment predicted tags, in the dataset's order (no padding reaches the argmax)."""
    from batching import build_loader

    model.eval()
    out = []
    for x, y, lengths in build_loader(dataset, batch_size, shuffle=False):
        pred = model(x).argmax(-1)
        keep = frame_mask(lengths, y.shape[1])
        for i in range(len(lengths)):
            out.append(pred[i][keep[i]].numpy())
    return out


def run_of(seg_id):
    return seg_id.split("-")[0]


def evaluate_dir(out_dir, cfg, min_overlap=0.5):
    with contextlib.redirect_stdout(io.StringIO()):
        _, val_ds = build_datasets(cfg)
    m = cfg.model
    model = FrameTagger(width=m.width, n_tags=len(TAGS), kernel=m.kernel, dropout=m.dropout)
    model.load_state_dict(torch.load(Path(out_dir) / "tagger.pt"))
    preds = predict(model, val_ds)
    per_run = {}
    for seg_id, y, p in zip(val_ds.seg_ids, val_ds.y, preds):
        r = per_run.setdefault(run_of(seg_id), {"conf": np.zeros((len(TAGS), len(TAGS)), np.int64),
                                                "spans": np.zeros((4, len(TAGS)), np.int64)})
        np.add.at(r["conf"], (y.numpy(), p), 1)
        r["spans"] += np.array(span_counts(y.numpy(), p, len(TAGS), min_overlap))
    return per_run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--config", default="configs/ili.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--min-overlap", type=float, default=0.5)
    args = parser.parse_args(argv)
    per_run = evaluate_dir(args.out_dir, load_config(args.config, args.set), args.min_overlap)
    for run, r in sorted(per_run.items()):
        total, found, pred_total, pred_hit = r["spans"]
        print(f"{run}: frame acc {np.trace(r['conf']) / r['conf'].sum():.4f} | "
              + " | ".join(f"{TAGS[t]} recall {recalls(r['conf'])[t]:.3f} F1 {f1s(r['conf'])[t]:.3f} "
                           f"spans {found[t]}/{total[t]} found, {pred_hit[t]}/{pred_total[t]} confirmed"
                           for t in (2, 3)))


if __name__ == "__main__":
    main()

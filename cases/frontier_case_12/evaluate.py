"""Evaluate a saved checkpoint on its validation split.

    python evaluate.py runs/experiment/checkpoint.pt [--split val|train]
"""

import argparse
import sys

import torch
import torch.nn.functional as F

from nirgrain.config import Config, _apply
from nirgrain.data import CLASSES, rebuild_split
from nirgrain.metrics import expected_calibration_error, macro_f1, per_class_recall, per_group_accuracy
from nirgrain.models import build_model


def load_checkpoint(path):
    """(model ready for inference, config, checkpoint dict) from a file BestCheckpoint wrote."""
    ckpt = torch.load(path)
    cfg = Config()
    _apply(cfg, ckpt["config"])
    model = build_model(cfg, len(CLASSES))
    model.load_state_dict(ckpt["model"])
    model.eval()
    return model, cfg, ckpt


@torch.no_grad()
def evaluate(path, split="val"):
    model, cfg, ckpt = load_checkpoint(path)
    x, y, instrument = rebuild_split(cfg, ckpt["static"], split)
    logits = model(x)
    return {
        "loss": F.cross_entropy(logits, y).item(),
        "acc": (logits.argmax(-1) == y).float().mean().item(),
        "f1": macro_f1(logits, y, len(CLASSES)),
        "ece": expected_calibration_error(logits, y, cfg.eval.ece_bins),
        "recall": per_class_recall(logits, y, len(CLASSES)),
        "instrument_acc": per_group_accuracy(logits, y, instrument),
        "epoch": ckpt["epoch"],
    }


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--split", choices=("val", "train"), default="val")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    r = evaluate(args.checkpoint, args.split)
    print(f"{args.split} loss {r['loss']:.4f} acc {r['acc']:.3f} f1 {r['f1']:.3f} ece {r['ece']:.3f} (epoch {r['epoch']})")
    print("recall  " + " ".join(f"{c} {v:.2f}" for c, v in zip(CLASSES, r["recall"])))
    print("instrument " + " ".join(f"m{k} {v:.2f}" for k, v in sorted(r["instrument_acc"].items())))


if __name__ == "__main__":
    main(sys.argv[1:])

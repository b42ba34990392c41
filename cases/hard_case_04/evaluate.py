"""Evaluate an exported gesture model on the validation recordings of its config.

Usage: python evaluate.py PATH [--batch-size N] [--seed S]

Prints the metrics, the confusion matrix and the accuracy per recording length, which is how
the on-watch numbers are compared with the training run.
"""

import argparse
import sys

import torch

from config import _build, ExperimentConfig
from metrics import confusion_matrix, format_confusion, summarize
from models import build_model
from synth import CLASS_NAMES, N_CHANNELS, N_CLASSES, make_dataset
from trainer import predict


def load_exported(path):
    """(model, config) from a file written by export.export."""
    blob = torch.load(path, weights_only=False)
    cfg = _build(ExperimentConfig, blob["config"])
    model = build_model(cfg.model, N_CHANNELS, N_CLASSES)
    model.load_state_dict(blob["state_dict"])
    return model.eval(), cfg


def accuracy_by_length(logits, labels, lengths, edges=(16, 20, 24)):
    """Accuracy of the recordings in each length band [lo, hi)."""
    bounds = (0, *edges, int(lengths.max()) + 1)
    out = []
    correct = logits.argmax(dim=-1) == labels
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        inside = (lengths >= lo) & (lengths < hi)
        if inside.any():
            out.append((lo, hi - 1, int(inside.sum()), correct[inside].float().mean().item()))
    return out


def main(argv):
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--batch-size", type=int, default=None, help="default: the config's eval.batch_size")
    parser.add_argument("--seed", type=int, default=None, help="default: the config's seed")
    args = parser.parse_args(argv)
    model, cfg = load_exported(args.path)
    seed = cfg.seed if args.seed is None else args.seed
    d = cfg.data
    xs, ys = make_dataset(d.n_val, seed=seed + 100, min_frames=d.min_frames, max_frames=d.max_frames)
    logits = predict(model, xs, args.batch_size or cfg.eval.batch_size)
    m = summarize(logits, ys, N_CLASSES)
    print(f"{cfg.name}: val loss {m['loss']:.4f} | acc {m['acc']:.3f} | macro-F1 {m['macro_f1']:.3f} | "
          f"ECE {m['ece']:.3f} (chance loss {m['chance_loss']:.3f})")
    print(format_confusion(confusion_matrix(logits.argmax(dim=-1), ys, N_CLASSES), CLASS_NAMES))
    lengths = torch.tensor([len(x) for x in xs])
    for lo, hi, n, acc in accuracy_by_length(logits, ys, lengths):
        print(f"  {lo:2d}-{hi:2d} frames: {n:4d} recordings, acc {acc:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])

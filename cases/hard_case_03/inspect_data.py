"""Look at the data the way the training sees it: split sizes, class counts and rendered samples.

Usage: python inspect_data.py [--config configs/NAME.toml] [--set key=value ...] [--classes 0,1] [--per-split 2]
"""

import argparse
import sys

import torch

from config import load_config
from datasets import stack_items
from glyphs import closest_pairs, render
from splits import class_counts, split_report, build_splits


def show_class(name, ds, cls, n):
    images, labels, rows = stack_items(ds)
    picked = torch.nonzero(labels == cls).flatten()[:n].tolist()
    for i in picked:
        print(f"{name} item {i} (row {int(rows[i])}), label {int(labels[i])}")
        print(render(images[i]))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--classes", default="0")
    parser.add_argument("--per-split", type=int, default=2)
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    train_set, val_set = build_splits(cfg)
    for line in split_report(train_set, val_set, cfg.data.n_classes):
        print(line)
    train_counts = class_counts(train_set, cfg.data.n_classes)
    val_counts = class_counts(val_set, cfg.data.n_classes)
    print("images per class in training:", torch.bincount(train_counts).tolist(), "(index = count)")
    pairs = ", ".join(f"{a}/{b} {s:.2f}" for a, b, s in closest_pairs(cfg.data.n_classes))
    print(f"most similar glyph pairs (cosine of the clean strokes): {pairs}")
    for cls in [int(c) for c in args.classes.split(",") if c.strip()]:
        print(f"--- class {cls}: {int(train_counts[cls])} train, {int(val_counts[cls])} val")
        show_class("train", train_set, cls, args.per_split)
        show_class("val", val_set, cls, args.per_split)


if __name__ == "__main__":
    main(sys.argv[1:])

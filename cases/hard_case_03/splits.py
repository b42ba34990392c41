"""Train/validation split of the glyph set, and a report of what each split holds."""

import torch
from torch.utils.data import Subset, random_split

from datasets import GlyphSet
from glyphs import make_glyphs

MIN_TRAIN_PER_CLASS = 7


def stratified_split(full, val_frac, gen):
    """Per-class split: each class gives round(val_frac * its size) images to validation."""
    train_rows, val_rows = [], []
    for c in full.labels.unique().tolist():
        rows = torch.nonzero(full.labels == c).flatten()
        rows = rows[torch.randperm(len(rows), generator=gen)]
        n_val = max(1, round(val_frac * len(rows)))
        val_rows += rows[:n_val].tolist()
        train_rows += rows[n_val:].tolist()
    return Subset(full, train_rows), Subset(full, val_rows)


def build_splits(cfg):
    """(train_set, val_set): a seeded split of the full GlyphSet into Subsets ("random" or "stratified")."""
    d = cfg.data
    images, labels = make_glyphs(d.n_classes, d.per_class, noise=d.noise, seed=cfg.seed)
    full = GlyphSet(images, labels)
    gen = torch.Generator().manual_seed(cfg.seed)
    if d.split == "stratified":
        return stratified_split(full, d.val_frac, gen)
    if d.split != "random":
        raise ValueError(f"data.split: unknown split {d.split!r} (random, stratified)")
    n_val = int(len(full) * d.val_frac)
    return random_split(full, [len(full) - n_val, n_val], generator=gen)


def class_counts(subset, n_classes):
    """Images per class in a Subset of a GlyphSet."""
    labels = subset.dataset.labels[torch.as_tensor(subset.indices)]
    return torch.bincount(labels, minlength=n_classes)


def split_report(train_set, val_set, n_classes):
    """Header lines: sizes, and a warning when the random split leaves classes thin in training."""
    counts = class_counts(train_set, n_classes)
    lines = [f"{len(train_set)} train / {len(val_set)} val images, {n_classes} classes"]
    thin = int((counts < MIN_TRAIN_PER_CLASS).sum())
    if thin:
        lines.append(f"warning: {thin} classes have fewer than {MIN_TRAIN_PER_CLASS} training images "
                     f"(min {int(counts.min())}, max {int(counts.max())})")
    return lines

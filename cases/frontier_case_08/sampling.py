"""How training windows are drawn into batches."""

import numpy as np
import torch
from torch.utils.data import DataLoader, WeightedRandomSampler

from dataset import WindowDataset


def class_balanced_weights(labels, n_classes):
    """Per-window draw weights that give every class the same expected share of an epoch."""
    counts = np.bincount(labels, minlength=n_classes).astype(np.float64)
    per_class = np.where(counts > 0, 1.0 / np.maximum(counts, 1), 0.0)
    return per_class[labels] / per_class[labels].sum()


def build_train_loader(table, standardizer, cfg, seed):
    """Training batches: with cfg.balanced, an epoch of len(table) windows drawn with replacement,
    class-balanced; otherwise a plain shuffle."""
    dataset = WindowDataset(table, standardizer)
    g = torch.Generator().manual_seed(seed)
    if cfg.balanced:
        weights = class_balanced_weights(dataset.y.numpy(), len(table.classes))
        sampler = WeightedRandomSampler(torch.as_tensor(weights), num_samples=len(dataset),
                                        replacement=True, generator=g)
        return DataLoader(dataset, batch_size=cfg.batch_size, sampler=sampler, drop_last=True)
    return DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True, generator=g, drop_last=True)


def build_eval_loader(table, standardizer, batch_size=512):
    return DataLoader(WindowDataset(table, standardizer), batch_size=batch_size, shuffle=False)

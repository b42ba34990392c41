"""How training windows are drawn into batches."""

import numpy as np
import torch
from torch.utils.data import DataLoader, WeightedRandomSampler

from dataset import WindowDataset


def balanced_weights(houses, labels, n_classes):
    """Per-window draw weights: every state the same expected share of an epoch, and within a state
    every house that has it the same share (so one house's faults do not stand for the whole state)."""
    weights = np.zeros(len(labels), dtype=np.float64)
    present = [c for c in range(n_classes) if np.any(labels == c)]
    for c in present:
        in_state = labels == c
        states_houses = sorted(set(houses[in_state]))
        for house in states_houses:
            cell = in_state & (houses == house)
            weights[cell] = 1.0 / (len(present) * len(states_houses) * cell.sum())
    return weights / weights.sum()


def build_train_loader(table, standardizer, cfg, seed):
    """Training batches: with cfg.balanced, an epoch of len(table) windows drawn with replacement,
    balanced over states and houses; otherwise a plain shuffle."""
    dataset = WindowDataset(table, standardizer)
    g = torch.Generator().manual_seed(seed)
    if cfg.balanced:
        weights = balanced_weights(dataset.houses, dataset.y.numpy(), len(table.classes))
        sampler = WeightedRandomSampler(torch.as_tensor(weights), num_samples=len(dataset),
                                        replacement=True, generator=g)
        return DataLoader(dataset, batch_size=cfg.batch_size, sampler=sampler, drop_last=True)
    return DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True, generator=g, drop_last=True)


def build_eval_loader(table, standardizer, batch_size=512):
    return DataLoader(WindowDataset(table, standardizer), batch_size=batch_size, shuffle=False)

"""How windows are batched for training and evaluation."""

import torch
from torch.utils.data import DataLoader

from dataset import WindowDataset


def build_train_loader(table, standardizer, cfg, seed):
    """Training batches: every window once per epoch, shuffled, the last short batch dropped."""
    g = torch.Generator().manual_seed(seed)
    return DataLoader(WindowDataset(table, standardizer), batch_size=cfg.batch_size, shuffle=True,
                      generator=g, drop_last=True)


def build_eval_loader(table, standardizer, batch_size=512):
    return DataLoader(WindowDataset(table, standardizer), batch_size=batch_size, shuffle=False)

"""How passes are put into batches for training and evaluation."""

import numpy as np
import torch
from torch.utils.data import DataLoader

from dataset import PassDataset


class TrainingPasses(PassDataset):
    """The training split as (x, y, w) examples, checked once when built."""

    def __init__(self, table, standardizer):
        if len(np.unique(table.pass_ids)) != len(table):
            raise ValueError("duplicate pass ids in the training split")
        super().__init__(table, standardizer)
        if not torch.isfinite(self.x).all():
            raise ValueError("non-finite model inputs after standardizing")
        self.w = torch.as_tensor(table.weights[self.rows], dtype=torch.float32)
        if not (self.w > 0).all():
            raise ValueError("training passes with a zero loss weight")
        self.class_counts = np.bincount(self.y.numpy(), minlength=len(table.classes))

    def __getitem__(self, i):
        x, y = super().__getitem__(i)
        return x, y, self.w[i]


def build_train_loader(table, standardizer, cfg, seed):
    """Shuffled training batches of (x, y, w); the last partial batch is dropped."""
    g = torch.Generator().manual_seed(seed)
    return DataLoader(TrainingPasses(table, standardizer), batch_size=cfg.batch_size, shuffle=True,
                      generator=g, drop_last=True)


def build_eval_loader(table, standardizer, batch_size=512):
    return DataLoader(PassDataset(table, standardizer), batch_size=batch_size, shuffle=False)

"""How passes are put into batches for training and evaluation."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from dataset import PassDataset


class TrainingPasses(Dataset):
    """The training split as (x, y, w) examples, checked once when built."""

    def __init__(self, table, standardizer):
        if len(np.unique(table.pass_ids)) != len(table):
            raise ValueError("duplicate pass ids in the training split")
        self.w = torch.as_tensor(table.weights, dtype=torch.float32)
        if not (self.w > 0).all():
            raise ValueError("training passes with a zero loss weight")
        passes = PassDataset(table, standardizer)
        if not torch.isfinite(passes.x).all():
            raise ValueError("non-finite model inputs after standardizing")
        self.x, self.y, self.pass_ids = passes.x, passes.y, passes.pass_ids
        self.class_counts = np.bincount(self.y.numpy(), minlength=len(table.classes))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i], self.w[i]


def build_train_loader(table, standardizer, cfg, seed):
    """Shuffled training batches of (x, y, w); the last partial batch is dropped."""
    g = torch.Generator().manual_seed(seed)
    return DataLoader(TrainingPasses(table, standardizer), batch_size=cfg.batch_size, shuffle=True,
                      generator=g, drop_last=True)


def build_eval_loader(table, standardizer, batch_size=512):
    return DataLoader(PassDataset(table, standardizer), batch_size=batch_size, shuffle=False)

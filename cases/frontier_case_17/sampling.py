"""How passes are put into batches: each training example carries its loss weight."""

import torch
from torch.utils.data import DataLoader, Dataset

from dataset import PassDataset


class Weighted(Dataset):
    """(x, y, w): a dataset's examples with one loss weight each."""

    def __init__(self, base, weights):
        if len(weights) != len(base):
            raise ValueError(f"{len(weights)} weights for {len(base)} examples")
        self.base = base
        self.w = torch.as_tensor(weights, dtype=torch.float32)

    def __len__(self):
        return len(self.base)

    def __getitem__(self, i):
        x, y = self.base[i]
        return x, y, self.w[i]


def build_train_loader(table, standardizer, cfg, seed):
    """Shuffled training batches of (x, y, w), the weights from the table's label_weights()."""
    dataset = Weighted(PassDataset(table, standardizer), table.label_weights())
    g = torch.Generator().manual_seed(seed)
    return DataLoader(dataset, batch_size=cfg.batch_size, shuffle=True, generator=g, drop_last=True)


def build_eval_loader(table, standardizer, batch_size=512):
    return DataLoader(PassDataset(table, standardizer), batch_size=batch_size, shuffle=False)

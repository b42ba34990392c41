"""Datasets and loaders over the scaled model inputs."""

import torch
from torch.utils.data import DataLoader, Dataset

from features import model_inputs


class WindowDataset(Dataset):
    """The table's windows as (input, label) pairs; the inputs are scaled once, up front."""

    def __init__(self, table, scaler, transform=None):
        self.window_ids = table.window_ids
        self.x = torch.from_numpy(scaler(model_inputs(table)).astype("float32"))
        self.y = torch.from_numpy(table.labels)
        self.transform = transform

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        if self.transform is not None:
            x = self.transform(x)
        return x, self.y[i]


def build_train_loader(table, scaler, cfg, seed, transform=None):
    g = torch.Generator().manual_seed(seed)
    return DataLoader(WindowDataset(table, scaler, transform), batch_size=cfg.batch_size, shuffle=True,
                      generator=g, drop_last=True)


def build_eval_loader(table, scaler, batch_size=512):
    return DataLoader(WindowDataset(table, scaler), batch_size=batch_size, shuffle=False)

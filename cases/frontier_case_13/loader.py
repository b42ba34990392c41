"""Datasets and loaders. Training batches are drawn by DataLoader workers, which apply the
augmentation; the loader is rebuilt every epoch so the augmentation can ramp up over the first
epochs (AugmentConfig.warmup_epochs)."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from augment import Augmenter


class MapDataset(Dataset):
    def __init__(self, inputs, labels, transform=None):
        self.inputs = inputs
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.inputs[i]
        if self.transform is not None:
            x = self.transform(x)
        return torch.from_numpy(np.ascontiguousarray(x)).unsqueeze(0), int(self.labels[i])


def augment_prob(aug_cfg, epoch):
    if not aug_cfg.enabled:
        return 0.0
    return min(1.0, (epoch + 1) / max(1, aug_cfg.warmup_epochs))


def seed_worker(worker_id):
    info = torch.utils.data.get_worker_info()
    np.random.seed(info.seed % 2**32)


def train_loader(inputs, labels, cfg, epoch):
    """The shuffled, augmented training loader of one epoch."""
    levels = (float(inputs.min()), float(inputs.max()))
    aug = Augmenter(cfg.augment.dihedral, cfg.augment.die_noise, augment_prob(cfg.augment, epoch), levels)
    generator = torch.Generator()
    generator.manual_seed(cfg.train.seed)
    return DataLoader(MapDataset(inputs, labels, aug), batch_size=cfg.train.batch_size, shuffle=True,
                      num_workers=cfg.train.num_workers, worker_init_fn=seed_worker,
                      generator=generator, drop_last=False)


def eval_loader(inputs, labels, batch_size=256):
    return DataLoader(MapDataset(inputs, labels), batch_size=batch_size, shuffle=False)

"""Splits and the endless batch stream the trainer draws from."""

from dataclasses import dataclass

import torch

from har.data.synth import make_recordings
from har.data.transforms import Augment, Standardizer


@dataclass
class DataSplits:
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_val: torch.Tensor
    y_val: torch.Tensor
    standardizer: Standardizer


def build_splits(cfg, seed):
    """Training and validation windows, both standardized with the training statistics."""
    x_train, y_train = make_recordings(cfg.n_train, cfg, seed)
    x_val, y_val = make_recordings(cfg.n_val, cfg, seed + cfg.val_seed_offset)
    std = Standardizer().fit(x_train)
    return DataSplits(std(x_train), y_train, std(x_val), y_val, std)


def class_weights(y, n_classes, temperature):
    """Sampling weight per window: inverse class frequency, tempered (0 = uniform sampling)."""
    counts = torch.bincount(y, minlength=n_classes).float().clamp_min(1)
    if temperature <= 0:
        return torch.ones(len(y))
    logits = -torch.log(counts) / temperature
    per_class = torch.softmax(logits, dim=0) * n_classes
    return per_class[y]


class BatchStream:
    """Endless shuffled batches; epochs reshuffle, a class-balanced sampler replaces the shuffle
    when ``balance_temperature`` > 0. Incomplete trailing batches are dropped."""

    def __init__(self, x, y, cfg, seed):
        self.x, self.y = x, y
        self.batch_size = cfg.batch_size
        self.generator = torch.Generator().manual_seed(seed)
        self.weights = class_weights(y, cfg.n_classes, cfg.balance_temperature)
        self.balanced = cfg.balance_temperature > 0
        self.augment = Augment(cfg.jitter, cfg.scale_range, seed=seed + 1)
        self.epoch = 0

    def _order(self):
        if self.balanced:
            return torch.multinomial(self.weights, len(self.y), replacement=True, generator=self.generator)
        return torch.randperm(len(self.y), generator=self.generator)

    def __iter__(self):
        while True:
            order = self._order()
            for start in range(0, len(order) - self.batch_size + 1, self.batch_size):
                idx = order[start:start + self.batch_size]
                yield self.augment(self.x[idx]), self.y[idx]
            self.epoch += 1

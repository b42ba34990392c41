"""Synthetic stand-in for the bearing-vibration dataset: 24 spectral features per window,
4 condition classes (healthy, inner race, outer race, ball). Same interface as the real loader."""

import torch

N_FEATURES = 24
CLASSES = ("healthy", "inner_race", "outer_race", "ball")


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    # class signatures are fixed; only the windows change with the seed
    proto = torch.randn(len(CLASSES), N_FEATURES, generator=torch.Generator().manual_seed(99))
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    load = torch.rand(n, 1, generator=g) * 2.0           # machine load shifts every band
    x = proto[y] * (0.6 + 0.4 * load) + 2.2 * torch.randn(n, N_FEATURES, generator=g) + load
    return x, y


class Loader:
    """Minimal batch iterator. ``augment`` adds small jitter to the spectra (training only)."""

    def __init__(self, x, y, batch_size, shuffle=False, augment=False, seed=0):
        self.x, self.y = x, y
        self.batch_size, self.shuffle, self.augment = batch_size, shuffle, augment
        self.g = torch.Generator().manual_seed(seed)

    def __len__(self):
        return (len(self.x) + self.batch_size - 1) // self.batch_size

    def __iter__(self):
        order = torch.randperm(len(self.x), generator=self.g) if self.shuffle else torch.arange(len(self.x))
        for i in range(0, len(order), self.batch_size):
            idx = order[i:i + self.batch_size]
            x = self.x[idx]
            if self.augment:
                x = x * (1.0 + 0.05 * torch.randn(x.shape, generator=self.g))
            yield x, self.y[idx]

"""Per-pixel standardization, fitted on the training images only."""

import torch


class Normalizer:
    """Per-pixel mean/std from the images a loader yields (the training loader)."""

    def __init__(self, eps=1e-6):
        self.eps = eps
        self.mean = self.std = None

    def fit(self, loader):
        xs = torch.cat([x for x, _, _ in loader])
        self.mean, self.std = xs.mean(0), xs.std(0).clamp_min(self.eps)
        return self

    def __call__(self, x):
        if self.mean is None:
            raise RuntimeError("Normalizer used before fit()")
        return (x - self.mean) / self.std

    def state(self):
        return {"mean": self.mean, "std": self.std}

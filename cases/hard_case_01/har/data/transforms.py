"""Per-channel standardization (fitted on the training split only) and training-time augmentation."""

import torch


class Standardizer:
    """Zero mean, unit variance per channel, with statistics from the training windows."""

    def __init__(self, min_std=1e-3):
        self.min_std = min_std
        self.mean = None
        self.std = None

    def fit(self, x):
        self.mean = x.mean(dim=(0, 2), keepdim=True)
        self.std = x.std(dim=(0, 2), keepdim=True).clamp_min(self.min_std)
        return self

    def __call__(self, x):
        if self.mean is None:
            raise RuntimeError("Standardizer used before fit()")
        return (x - self.mean) / self.std

    def inverse(self, x):
        return x * self.std + self.mean

    def state_dict(self):
        return {"mean": self.mean.clone(), "std": self.std.clone()}

    def load_state_dict(self, state):
        self.mean, self.std = state["mean"].clone(), state["std"].clone()


class Augment:
    """Gaussian jitter and a random per-window gain; the identity when both are zero."""

    def __init__(self, jitter=0.0, scale_range=0.0, seed=0):
        self.jitter = jitter
        self.scale_range = scale_range
        self.generator = torch.Generator().manual_seed(seed)

    @property
    def active(self):
        return self.jitter > 0 or self.scale_range > 0

    def __call__(self, x):
        if not self.active:
            return x
        if self.scale_range > 0:
            gain = 1.0 + self.scale_range * (2 * torch.rand(len(x), 1, 1, generator=self.generator) - 1)
            x = x * gain
        if self.jitter > 0:
            x = x + self.jitter * torch.randn(x.shape, generator=self.generator)
        return x

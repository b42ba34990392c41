"""Synthetic IMU recordings until the field recordings are labelled.

Each activity has a characteristic frequency, amplitude and offset on each of the six channels
(accelerometer xyz, gyroscope xyz); every recording gets its own phase, a per-subject speed
factor and sensor noise. The prototypes are fixed by ``prototype_seed`` so that the splits
share them and only the samples differ with the split's seed.
"""

import math

import torch

ACTIVITIES = ("walk", "run", "sit", "stand", "stairs_up", "stairs_down", "cycle", "lie")


def class_prototypes(n_classes, n_channels, seed):
    g = torch.Generator().manual_seed(seed)
    freq = 1.0 + 4.0 * torch.rand(n_classes, n_channels, generator=g)
    amp = 0.2 + 0.8 * torch.rand(n_classes, n_channels, generator=g)
    offset = 0.3 * torch.randn(n_classes, n_channels, generator=g)
    return freq, amp, offset


def make_recordings(n, cfg, seed):
    """``n`` windows of shape (n_channels, window) with their activity labels."""
    freq, amp, offset = class_prototypes(cfg.n_classes, cfg.n_channels, cfg.prototype_seed)
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, cfg.n_classes, (n,), generator=g)
    speed = 1.0 + cfg.subject_spread * torch.randn(n, 1, generator=g)
    phase = 2 * math.pi * torch.rand(n, cfg.n_channels, generator=g)
    t = torch.arange(cfg.window, dtype=torch.float32) / cfg.window
    angle = 2 * math.pi * (freq[y] * speed)[..., None] * t + phase[..., None]
    x = amp[y][..., None] * torch.sin(angle) + offset[y][..., None]
    x = x + cfg.noise * torch.randn(n, cfg.n_channels, cfg.window, generator=g)
    return x, y


def class_counts(y, n_classes):
    return torch.bincount(y, minlength=n_classes)

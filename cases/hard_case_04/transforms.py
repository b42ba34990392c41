"""Per-channel statistics and the training-time augmentations.

Statistics are computed over valid frames only (recordings are stored unpadded), and are handed
to the model, which standardizes its own inputs so an exported model takes raw frames.
"""

from dataclasses import dataclass

import torch


@dataclass
class ChannelStats:
    mean: torch.Tensor
    std: torch.Tensor


def channel_stats(recordings, eps=1e-6):
    """Mean and std of every channel over all frames of all recordings."""
    n_channels = recordings[0].shape[-1]
    frames = torch.cat([r.reshape(-1, n_channels) for r in recordings])
    return ChannelStats(frames.mean(dim=0), frames.std(dim=0).clamp_min(eps))


class Augment:
    """Random per-recording amplitude scaling plus additive frame noise, on a padded batch.

    Noise is added only to valid frames: padding must stay exactly zero, since pooling and
    the length masks assume it.
    """

    def __init__(self, jitter=0.0, scale_range=0.0, seed=0):
        self.jitter, self.scale_range = jitter, scale_range
        self.gen = torch.Generator().manual_seed(seed)

    @property
    def active(self):
        return self.jitter > 0 or self.scale_range > 0

    def __call__(self, x, lengths):
        if not self.active:
            return x
        B, T, C = x.shape
        valid = (torch.arange(T)[None, :] < lengths[:, None]).unsqueeze(-1)
        if self.scale_range > 0:
            scale = 1.0 + self.scale_range * (2 * torch.rand(B, 1, 1, generator=self.gen) - 1)
            x = x * scale
        if self.jitter > 0:
            x = x + self.jitter * torch.randn(B, T, C, generator=self.gen) * valid
        return x

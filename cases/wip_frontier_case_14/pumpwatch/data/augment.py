"""Per-batch augmentation on standardized log-power frames."""

import torch


class FrameShift:
    """Roll every example along its frames by a random offset in [-max_shift, max_shift]."""

    def __init__(self, max_shift):
        self.max_shift = max_shift

    def __call__(self, x):
        if self.max_shift <= 0:
            return x
        shifts = torch.randint(-self.max_shift, self.max_shift + 1, (x.shape[0],))
        idx = (torch.arange(x.shape[-1]).unsqueeze(0) - shifts.unsqueeze(1)) % x.shape[-1]
        return torch.gather(x, 2, idx.unsqueeze(1).expand_as(x))


class GainJitter:
    """Add a random per-example gain (in standardized log-power units) to every bin."""

    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        if self.scale <= 0:
            return x
        return x + self.scale * torch.randn(x.shape[0], 1, 1)


class Compose:
    def __init__(self, *stages):
        self.stages = [s for s in stages if s is not None]

    def __call__(self, x):
        for stage in self.stages:
            x = stage(x)
        return x

    def __repr__(self):
        return "+".join(type(s).__name__ for s in self.stages) or "none"


def build_augment(cfg):
    stages = []
    if cfg.data.frame_shift > 0:
        stages.append(FrameShift(cfg.data.frame_shift))
    if cfg.data.gain_jitter > 0:
        stages.append(GainJitter(cfg.data.gain_jitter))
    return Compose(*stages)

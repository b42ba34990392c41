"""Synthetic IMU gesture recordings until the real captures are labelled.

Each recording is a variable-length 40 Hz stream with 6 channels. The gesture class is set by
the direction of the drift on channels 0 and 1 (up/up, up/down, down/up, down/down); channels
2-5 carry a wrist-rotation oscillation with a random phase, which is nuisance signal. Streams
are framed to 10 Hz by averaging blocks of HOP samples.
"""

import torch

N_CHANNELS = 6
N_CLASSES = 4
HOP = 4
CLASS_NAMES = ("up-up", "up-down", "down-up", "down-down")


def make_recordings(labels, n_samples, g):
    """Raw streams for a set of recordings, padded to the longest: (N, S_max, C)."""
    n, s_max = len(labels), int(n_samples.max())
    pos = torch.arange(s_max)[None, :].float()
    t = 2.0 * pos / (n_samples[:, None] - 1).float() - 1.0
    slope = torch.stack([1.0 - 2.0 * (labels // 2), 1.0 - 2.0 * (labels % 2)], dim=1).float()
    x = 0.8 * torch.randn(n, s_max, N_CHANNELS, generator=g)
    x[:, :, :2] += 1.5 * t[:, :, None] * slope[:, None, :]
    phase = torch.rand(n, 1, N_CHANNELS - 2, generator=g) * 6.28
    x[:, :, 2:] += torch.sin(6.0 * t[:, :, None] + phase)
    return x


def frame(raw, hop=HOP):
    """Average non-overlapping blocks of ``hop`` samples: (N, S, C) -> (N, S // hop, C)."""
    n, s, c = raw.shape
    return raw[:, : s // hop * hop].reshape(n, s // hop, hop, c).mean(dim=2)


def make_dataset(n, seed=0, min_frames=12, max_frames=28):
    """``n`` framed recordings (a list of (L_i, C) tensors) and their labels, deterministic in ``seed``."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, N_CLASSES, (n,), generator=g)
    frames = torch.randint(min_frames, max_frames + 1, (n,), generator=g)
    x = frame(make_recordings(labels, frames * HOP, g))
    return [x[i, : int(f)].clone() for i, f in enumerate(frames)], labels


def class_balance(labels):
    """Share of each class, for the run header."""
    counts = torch.bincount(labels, minlength=N_CLASSES).float()
    return (counts / counts.sum()).tolist()

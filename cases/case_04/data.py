"""Synthetic two-channel gesture recordings until the real IMU captures are labelled.

Each recording is a variable-length stream sampled at 40 Hz with 6 channels. The gesture
class is set by the direction of the drift on channels 0 and 1 (up/up, up/down, down/up,
down/down); the other channels are nuisance signal. Recordings are framed to 10 Hz by
averaging blocks of 4 samples.
"""

import torch

N_CHANNELS = 6
N_CLASSES = 4
HOP = 4


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
    """Average non-overlapping blocks of `hop` samples: (N, S, C) -> (N, S // hop, C)."""
    n, s, c = raw.shape
    return raw[:, : s // hop * hop].reshape(n, s // hop, hop, c).mean(dim=2)


def make_dataset(n, seed=0, min_frames=12, max_frames=28):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, N_CLASSES, (n,), generator=g)
    frames = torch.randint(min_frames, max_frames + 1, (n,), generator=g)
    x = frame(make_recordings(labels, frames * HOP, g))
    return [x[i, : int(f)].clone() for i, f in enumerate(frames)], labels


def collate(xs):
    """Pad a list of (L_i, C) recordings to (B, T, C) with zeros; returns (x, lengths)."""
    lengths = torch.tensor([len(x) for x in xs])
    out = torch.zeros(len(xs), int(lengths.max()), xs[0].shape[1])
    for i, x in enumerate(xs):
        out[i, : len(x)] = x
    return out, lengths


def batches(xs, ys, batch_size, seed):
    g = torch.Generator().manual_seed(seed)
    while True:
        perm = torch.randperm(len(xs), generator=g).tolist()
        for i in range(0, len(perm) - batch_size + 1, batch_size):
            idx = perm[i:i + batch_size]
            x, lengths = collate([xs[j] for j in idx])
            yield x, lengths, ys[idx]

"""Batching: pad variable-length recordings, optionally bucketed by length.

Bucketing sorts each shuffled pool of recordings by length before cutting it into batches, so
a batch pads less; the batches themselves are then shuffled so lengths do not trend over an epoch.
"""

import torch


def collate(xs):
    """Pad a list of (L_i, C) recordings to (B, T, C) with zeros; returns (x, lengths)."""
    lengths = torch.tensor([len(x) for x in xs])
    out = torch.zeros(len(xs), int(lengths.max()), xs[0].shape[1])
    for i, x in enumerate(xs):
        out[i, : len(x)] = x
    return out, lengths


def _epoch_batches(xs, batch_size, g, bucket, pool_batches=8):
    perm = torch.randperm(len(xs), generator=g).tolist()
    if not bucket:
        return [perm[i:i + batch_size] for i in range(0, len(perm) - batch_size + 1, batch_size)]
    pool = batch_size * pool_batches
    out = []
    for start in range(0, len(perm), pool):
        chunk = sorted(perm[start:start + pool], key=lambda j: len(xs[j]))
        out += [chunk[i:i + batch_size] for i in range(0, len(chunk) - batch_size + 1, batch_size)]
    order = torch.randperm(len(out), generator=g).tolist()
    return [out[i] for i in order]


def train_batches(xs, ys, batch_size, seed, bucket=False):
    """Endless stream of (x, lengths, y) training batches; full batches only."""
    g = torch.Generator().manual_seed(seed)
    while True:
        for idx in _epoch_batches(xs, batch_size, g, bucket):
            x, lengths = collate([xs[j] for j in idx])
            yield x, lengths, ys[idx]


def eval_batches(xs, ys, batch_size):
    """The recordings in order, in batches of ``batch_size`` (the last one may be short)."""
    for i in range(0, len(xs), batch_size):
        x, lengths = collate(xs[i:i + batch_size])
        yield x, lengths, ys[i:i + batch_size]


def padding_fraction(xs, batch_size, seed, bucket, n_batches=50):
    """Share of padded frames over the first batches of the training stream (for the run header)."""
    stream = train_batches(xs, torch.zeros(len(xs), dtype=torch.long), batch_size, seed, bucket)
    padded = total = 0
    for _ in range(n_batches):
        x, lengths, _ = next(stream)
        total += x.shape[0] * x.shape[1]
        padded += x.shape[0] * x.shape[1] - int(lengths.sum())
    return padded / max(total, 1)

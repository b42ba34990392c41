"""Batches of segments: padded to the longest segment in the batch, with each segment's length."""

import torch
from torch.utils.data import DataLoader

IGNORE = -100   # target value the loss skips


def pad_stack(seqs, value=0):
    """Stack sequences of different lengths (dim 0) into one tensor, padding the tail with `value`."""
    longest = max(len(s) for s in seqs)
    out = seqs[0].new_full((len(seqs), longest, *seqs[0].shape[1:]), value)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = s
    return out


def pad_batch(batch):
    xs, ys = zip(*batch)
    lengths = torch.tensor([len(y) for y in ys])
    return pad_stack(xs), pad_stack(ys), lengths


def build_loader(dataset, batch_size, shuffle, seed=0):
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, collate_fn=pad_batch,
                      generator=g if shuffle else None)


def frame_mask(lengths, longest):
    """(B, longest) bool: True on a segment's real frames."""
    return torch.arange(longest)[None, :] < lengths[:, None]

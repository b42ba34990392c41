"""Masks shared by the models."""

import torch


def padding_mask(lengths, max_len=None, dtype=torch.float32):
    """[B, L] mask that is 1 on a session's events and 0 on the padding after them."""
    max_len = int(lengths.max()) if max_len is None else max_len
    positions = torch.arange(max_len, device=lengths.device)
    return (positions[None, :] < lengths[:, None]).to(dtype)


def masked_mean(x, mask):
    """Mean of x [B, L, D] over the positions where mask [B, L] is 1."""
    weights = mask.unsqueeze(-1).to(x.dtype)
    return (x * weights).sum(1) / weights.sum(1).clamp_min(1.0)

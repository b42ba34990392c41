"""Building blocks shared by the gesture models."""

import torch
import torch.nn as nn


def length_mask(lengths, T):
    """(B, T, 1) float mask, 1 on the valid frames of each recording."""
    return (torch.arange(T)[None, :] < lengths[:, None]).unsqueeze(-1).float()


class InputNorm(nn.Module):
    """Standardizes raw frames with the training set's channel statistics (kept as buffers so an
    exported model takes raw frames); padded frames stay exactly zero."""

    def __init__(self, n_channels):
        super().__init__()
        self.register_buffer("mean", torch.zeros(n_channels))
        self.register_buffer("std", torch.ones(n_channels))

    def set_stats(self, stats):
        self.mean.copy_(stats.mean)
        self.std.copy_(stats.std)

    def forward(self, x, lengths):
        return (x - self.mean) / self.std * length_mask(lengths, x.shape[1])


class FrameEmbed(nn.Module):
    """Embeds every frame on its own: (B, T, C) -> (B * T, H).

    The output is left flat so each model lays the frames out the way its sequence layer wants.
    """

    def __init__(self, n_channels, hidden):
        super().__init__()
        self.proj = nn.Linear(n_channels, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, x):
        B, T, C = x.shape
        return torch.relu(self.norm(self.proj(x.reshape(B * T, C))))


def masked_mean(h, lengths):
    """Mean of (B, T, H) states over each recording's valid frames."""
    mask = length_mask(lengths, h.shape[1])
    return (h * mask).sum(dim=1) / lengths[:, None].float()


def masked_max(h, lengths):
    """Max of (B, T, H) states over each recording's valid frames."""
    mask = length_mask(lengths, h.shape[1])
    return h.masked_fill(mask == 0, float("-inf")).max(dim=1).values


class AttentionPool(nn.Module):
    """Learned weighted mean over the valid frames (a softmax over time per recording)."""

    def __init__(self, hidden):
        super().__init__()
        self.score = nn.Linear(hidden, 1)

    def forward(self, h, lengths):
        mask = length_mask(lengths, h.shape[1])
        scores = self.score(h).masked_fill(mask == 0, float("-inf"))
        weights = scores.softmax(dim=1)
        return (weights * h).sum(dim=1)


def make_pool(kind, hidden):
    if kind == "mean":
        return None
    if kind == "attention":
        return AttentionPool(hidden)
    raise ValueError(f"model.pool: unknown pooling {kind!r} (mean, attention)")


class ClassifierHead(nn.Module):
    """BatchNorm over the pooled features, dropout, linear classifier."""

    def __init__(self, features, n_classes, dropout):
        super().__init__()
        self.norm = nn.BatchNorm1d(features)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(features, n_classes)

    def forward(self, pooled):
        return self.out(self.drop(self.norm(pooled)))

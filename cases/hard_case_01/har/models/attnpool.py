"""Temporal conv encoder with attention pooling over time.

The stem and residual conv blocks produce a feature per time step; a learned query scores the
time steps and the window is summarized by the attention-weighted mean of its features, so a
short burst (a step, a pedal stroke) can dominate the summary regardless of where it falls.
"""

import torch
import torch.nn as nn

from har.models.blocks import ChannelNorm, ConvBlock, Stem, init_linear_


class AttentionPool(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.score = nn.Linear(channels, 1)
        self.scale = channels ** -0.5

    def weights(self, h):
        """(batch, time) attention weights of (batch, channels, time) features."""
        scores = self.score(h.transpose(1, 2)).squeeze(-1) * self.scale
        return torch.softmax(scores, dim=-1)

    def forward(self, h):
        return torch.einsum("bt,bct->bc", self.weights(h), h)


class AttnPoolNet(nn.Module):
    def __init__(self, n_channels, n_classes, channels=32, depth=2, kernel_size=5, dropout=0.0):
        super().__init__()
        self.stem = Stem(n_channels, channels, kernel_size)
        self.blocks = nn.Sequential(*[ConvBlock(channels, kernel_size, dropout) for _ in range(depth)])
        self.norm = ChannelNorm(channels)
        self.pool = AttentionPool(channels)
        self.head = init_linear_(nn.Linear(channels, n_classes))

    def encode(self, x):
        return self.norm(self.blocks(self.stem(x)))

    def forward(self, x):
        pooled = self.pool(self.encode(x))
        return self.head(pooled).softmax(dim=-1)

"""Temporal convolution baseline: frame embedding, residual 1-D conv blocks, mean+max pooling."""

import torch
import torch.nn as nn

from layers import ClassifierHead, FrameEmbed, InputNorm, length_mask, masked_max, masked_mean


class ConvBlock(nn.Module):
    """Residual block of a 'same'-padded Conv1d; padded frames are zeroed after every block so the
    convolution of the next block does not read them."""

    def __init__(self, hidden, kernel):
        super().__init__()
        self.conv = nn.Conv1d(hidden, hidden, kernel, padding=kernel // 2)
        self.act = nn.GELU()

    def forward(self, h, mask):
        # h: (B, H, T), mask: (B, 1, T)
        return (h + self.act(self.conv(h))) * mask


class ConvNet(nn.Module):
    def __init__(self, n_channels, n_classes, hidden=32, dropout=0.1, kernel=5, layers=2):
        super().__init__()
        if kernel % 2 == 0:
            raise ValueError(f"model.kernel must be odd for 'same' padding, got {kernel}")
        self.inputs = InputNorm(n_channels)
        self.embed = FrameEmbed(n_channels, hidden)
        self.blocks = nn.ModuleList(ConvBlock(hidden, kernel) for _ in range(layers))
        self.head = ClassifierHead(2 * hidden, n_classes, dropout)

    def forward(self, x, lengths):
        B, T, _ = x.shape
        frames = self.embed(self.inputs(x, lengths)).view(B, T, -1)
        mask = length_mask(lengths, T).transpose(1, 2)
        h = frames.transpose(1, 2) * mask
        for block in self.blocks:
            h = block(h, mask)
        h = h.transpose(1, 2)
        pooled = torch.stack([masked_mean(h, lengths), masked_max(h, lengths)], dim=1)
        return self.head(pooled.reshape(B, -1))

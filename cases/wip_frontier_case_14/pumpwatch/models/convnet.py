"""SEConvNet: 1-D convolutions along the frames, frequency bins as channels."""

import torch.nn as nn

from .blocks import AttentionPool, ConvBNReLU, MeanPool, ResidualSE


class SEConvNet(nn.Module):
    def __init__(self, n_bins, n_classes, width=64, blocks=2, kernel=3, gate_dropout=0.1,
                 pool_dropout=0.5, head_dropout=0.1, pool="attention"):
        super().__init__()
        self.stem = ConvBNReLU(n_bins, width, kernel)
        self.blocks = nn.Sequential(*[ResidualSE(width, kernel, 4, gate_dropout) for _ in range(blocks)])
        self.pool = AttentionPool(width, pool_dropout) if pool == "attention" else MeanPool()
        self.head = nn.Sequential(nn.Dropout(head_dropout), nn.Linear(width, n_classes))

    def forward(self, x):
        return self.head(self.pool(self.blocks(self.stem(x))))


class PlainConvNet(nn.Module):
    """The 0.2 baseline: no gates, mean pooling."""

    def __init__(self, n_bins, n_classes, width=64, kernel=3, head_dropout=0.3):
        super().__init__()
        self.body = nn.Sequential(ConvBNReLU(n_bins, width, kernel), ConvBNReLU(width, width, kernel),
                                  ConvBNReLU(width, width, kernel))
        self.head = nn.Sequential(nn.Dropout(head_dropout), nn.Linear(width, n_classes))

    def forward(self, x):
        return self.head(self.body(x).mean(dim=-1))

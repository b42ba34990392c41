"""Baseline: an MLP over the flattened window."""

import torch.nn as nn

from har.models.blocks import init_linear_, mlp


class WindowMLP(nn.Module):
    def __init__(self, n_channels, window, n_classes, hidden=128, depth=2, dropout=0.0):
        super().__init__()
        self.backbone = mlp([n_channels * window] + [hidden] * depth, dropout)
        self.act = nn.ReLU()
        self.head = init_linear_(nn.Linear(hidden, n_classes))

    def features(self, x):
        return self.act(self.backbone(x.reshape(len(x), -1)))

    def forward(self, x):
        return self.head(self.features(x))

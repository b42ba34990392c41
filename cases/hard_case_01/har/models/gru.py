"""Recurrent baseline: a bidirectional GRU over the time steps, mean-pooled."""

import torch.nn as nn

from har.models.blocks import init_linear_


class GRUNet(nn.Module):
    def __init__(self, n_channels, n_classes, hidden=64, depth=1, dropout=0.0):
        super().__init__()
        self.rnn = nn.GRU(n_channels, hidden, num_layers=depth, batch_first=True, bidirectional=True,
                          dropout=dropout if depth > 1 else 0.0)
        self.norm = nn.LayerNorm(2 * hidden)
        self.head = init_linear_(nn.Linear(2 * hidden, n_classes))

    def features(self, x):
        out, _ = self.rnn(x.transpose(1, 2))
        return self.norm(out.mean(dim=1))

    def forward(self, x):
        return self.head(self.features(x))

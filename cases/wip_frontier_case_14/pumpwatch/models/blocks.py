"""Building blocks of the vibration classifiers."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBNReLU(nn.Sequential):
    def __init__(self, c_in, c_out, kernel=3):
        super().__init__(nn.Conv1d(c_in, c_out, kernel, padding=kernel // 2, bias=False),
                         nn.BatchNorm1d(c_out), nn.ReLU())


class SqueezeExcite(nn.Module):
    """Channel gate: pool over frames, a bottleneck MLP, a sigmoid scale per channel.

    ``p`` drops whole channels of the gated output (spatial dropout), so no single detector channel
    carries a class on its own.
    """

    def __init__(self, channels, reduction=4, p=0.0):
        super().__init__()
        self.fc1 = nn.Linear(channels, channels // reduction)
        self.fc2 = nn.Linear(channels // reduction, channels)
        self.p = p

    def forward(self, x):
        s = F.relu(self.fc1(x.mean(dim=-1)))
        gate = torch.sigmoid(self.fc2(s))
        gate = F.dropout(gate, self.p, training=self.training)
        return x * gate.unsqueeze(-1)


class ResidualSE(nn.Module):
    def __init__(self, channels, kernel=3, reduction=4, gate_dropout=0.0):
        super().__init__()
        self.conv = ConvBNReLU(channels, channels, kernel)
        self.se = SqueezeExcite(channels, reduction, gate_dropout)

    def forward(self, x):
        return x + self.se(self.conv(x))


class AttentionPool(nn.Module):
    """Weighted mean over frames, the weights from a learned score per frame; ``p`` drops units of
    the pooled embedding."""

    def __init__(self, channels, p=0.0):
        super().__init__()
        self.score = nn.Conv1d(channels, 1, 1)
        self.p = p

    def forward(self, x):
        w = torch.softmax(self.score(x), dim=-1)
        pooled = (x * w).sum(dim=-1)
        return F.dropout(pooled, self.p)


class MeanPool(nn.Module):
    def forward(self, x):
        return x.mean(dim=-1)

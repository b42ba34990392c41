"""HerdNet: an MLP over a window's scaled inputs."""

import torch
from torch import nn


class HerdNet(nn.Module):
    def __init__(self, n_inputs, classes, hidden=96, dropout=0.1):
        super().__init__()
        self.classes = tuple(classes)
        self.body = nn.Sequential(
            nn.Linear(n_inputs, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(dropout),
        )
        self.head = nn.Linear(hidden, len(self.classes))

    def forward(self, x):
        return self.head(self.body(x))

    @torch.no_grad()
    def predict(self, x):
        return self.forward(x).argmax(dim=-1)

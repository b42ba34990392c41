"""PickNet: a small MLP over a record's standardized features."""

import torch
from torch import nn


class PickNet(nn.Module):
    def __init__(self, n_inputs, classes, hidden=160, depth=2, dropout=0.0):
        super().__init__()
        self.classes = tuple(classes)
        layers, width = [], n_inputs
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.GELU()]
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            width = hidden
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, len(self.classes))

    def forward(self, x):
        return self.head(self.body(x))

    @torch.no_grad()
    def predict(self, x):
        return self.forward(x).argmax(dim=1)

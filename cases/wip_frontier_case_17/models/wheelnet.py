"""WheelNet: an MLP backbone over a pass's features and a linear classification head."""

import math

import torch
from torch import nn


class PairedEmbedding(nn.Module):
    """The first layer: a pass's readings and their change since the wagon's last pass, each with its own
    weights, summed into one hidden vector."""

    def __init__(self, n_inputs, hidden):
        super().__init__()
        if n_inputs % 2:
            raise ValueError(f"expected readings and deltas of equal width, got {n_inputs} inputs")
        self.n_readings = n_inputs // 2
        self.w_read = nn.Parameter(torch.empty(hidden, self.n_readings))
        self.w_delta = nn.Parameter(torch.empty(hidden, self.n_readings))
        self.bias = nn.Parameter(torch.zeros(hidden))
        self.reset_parameters()

    def reset_parameters(self):
        for w in (self.w_read, self.w_delta):
            nn.init.kaiming_uniform_(w, a=math.sqrt(5))
        nn.init.zeros_(self.bias)

    def forward(self, x):
        readings, deltas = x[:, :self.n_readings], x[:, self.n_readings:]
        return readings @ self.w_read.T + deltas @ self.w_delta.T + self.bias


class Backbone(nn.Module):
    def __init__(self, n_inputs, hidden=96, width=64, dropout=0.1):
        super().__init__()
        self.embed = PairedEmbedding(n_inputs, hidden)
        self.net = nn.Sequential(
            nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, width), nn.GELU(),
        )
        self.n_inputs = n_inputs
        self.width = width

    def forward(self, x):
        return self.net(self.embed(x))


class WheelNet(nn.Module):
    def __init__(self, n_inputs, classes, hidden=96, width=64, dropout=0.1, init_std=0.02):
        super().__init__()
        self.backbone = Backbone(n_inputs, hidden, width, dropout)
        self.classes = tuple(classes)
        self.init_std = init_std
        self.head = nn.Linear(width, len(self.classes))
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=self.init_std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)

    def adapt_to_labels(self, classes):
        """Give the model an output layer for `classes`; a pretrained head for other labels is replaced."""
        classes = tuple(classes)
        if classes != self.classes:
            self.head = nn.Linear(self.backbone.width, len(classes))
            self.classes = classes
            self.apply(self._init_weights)
        return self

    def forward(self, x):
        return self.head(self.backbone(x))

    @torch.no_grad()
    def predict(self, x):
        return self.forward(x).argmax(dim=-1)

"""ClimNet: an MLP backbone over a window's features and a linear classification head."""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, n_inputs, hidden=96, width=64, dropout=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_inputs, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, width), nn.GELU(),
        )
        self.width = width

    def forward(self, x):
        return self.net(x)


class ClimNet(nn.Module):
    def __init__(self, n_inputs, classes, hidden=96, width=64, dropout=0.1, head_init_std=0.02):
        super().__init__()
        self.backbone = Backbone(n_inputs, hidden, width, dropout)
        self.classes = tuple(classes)
        self.head_init_std = head_init_std
        self.head = self._new_head(len(self.classes))

    def _new_head(self, n):
        head = nn.Linear(self.backbone.width, n)
        nn.init.normal_(head.weight, std=self.head_init_std)
        nn.init.zeros_(head.bias)
        return head

    def adapt_to_labels(self, classes):
        """Give the model a head for `classes`; a pretrained head for other labels is replaced."""
        classes = tuple(classes)
        if classes != self.classes:
            self.head = self._new_head(len(classes))
            self.classes = classes
        return self

    def forward(self, x):
        return self.head(self.backbone(x))

    @torch.no_grad()
    def predict(self, x):
        return self.forward(x).argmax(dim=-1)

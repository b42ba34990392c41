import torch.nn as nn

from models.heads import RateHead


class RateMLP(nn.Module):
    """MLP body, rate head."""

    def __init__(self, n_inputs, scale_kwh, hidden=64, depth=2, dropout=0.0):
        super().__init__()
        layers, width = [], n_inputs
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.GELU()]
            width = hidden
        if dropout:
            layers.append(nn.Dropout(dropout))
        self.body = nn.Sequential(*layers)
        self.head = RateHead(hidden, scale_kwh)

    def forward(self, x):
        return self.head(self.body(x))

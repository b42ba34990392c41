import torch.nn as nn

from models.heads import GaussianHead


class GaussianMLP(nn.Module):
    """MLP with a Gaussian head: predicts the mean and variance of next-hour load."""

    def __init__(self, n_inputs, hidden=64, depth=2, dropout=0.0, min_var=1e-4):
        super().__init__()
        layers, width = [], n_inputs
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.GELU()]
            width = hidden
        if dropout:
            layers.append(nn.Dropout(dropout))
        self.body = nn.Sequential(*layers)
        self.head = GaussianHead(hidden, min_var)

    def forward(self, x):
        return self.head(self.body(x))

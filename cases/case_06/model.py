import torch.nn as nn
import torch.nn.functional as F


class LoadForecaster(nn.Module):
    """MLP with a Gaussian head: predicts the mean and variance of next-hour load."""

    def __init__(self, n_inputs, hidden=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_inputs, hidden), nn.GELU(),
            nn.Linear(hidden, hidden), nn.GELU(),
        )
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):
        mu, raw_var = self.head(self.body(x)).unbind(dim=-1)
        return mu, F.softplus(raw_var)

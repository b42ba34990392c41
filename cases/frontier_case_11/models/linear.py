import torch.nn as nn

from models.heads import RateHead


class LinearRate(nn.Module):
    """Baseline: softplus of a linear function of the inputs."""

    def __init__(self, n_inputs, scale_kwh):
        super().__init__()
        self.head = RateHead(n_inputs, scale_kwh)

    def forward(self, x):
        return self.head(x)

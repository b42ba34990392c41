import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, hidden=20, depth=2):
        super().__init__()
        layers, width = [], 1
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.Tanh()]
            width = hidden
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers).double()

    def forward(self, z):
        return self.net(z)


class TemperatureField(nn.Module):
    """T(x) in kelvin for x in metres across the slab."""

    def __init__(self, slab, hidden=20):
        super().__init__()
        self.L = slab.L
        self.T_ref = 0.5 * (slab.T_hot + slab.T_cold)
        self.mlp = MLP(hidden)

    def forward(self, x):
        z = 2.0 * x / self.L - 1.0  # inputs to [-1, 1]
        return self.T_ref * self.mlp(z)

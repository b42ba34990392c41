"""Steady 1D conduction through a slab: k T''(x) + q = 0 on [0, L], T(0) = T_hot, T(L) = T_cold."""

from dataclasses import dataclass

import torch


@dataclass
class Slab:
    L: float = 1e-3        # thickness [m]
    T_hot: float = 500.0   # T(0) [K]
    T_cold: float = 300.0  # T(L) [K]
    k: float = 50.0        # conductivity [W/(m K)]
    q: float = 0.0         # volumetric heat generation [W/m^3]

    def boundary(self):
        x = torch.tensor([[0.0], [self.L]], dtype=torch.float64)
        T = torch.tensor([[self.T_hot], [self.T_cold]], dtype=torch.float64)
        return x, T

    def collocation(self, n):
        return torch.linspace(0.0, self.L, n, dtype=torch.float64).reshape(-1, 1)

    def exact(self, x):
        """Analytic solution [K]."""
        xi = x / self.L
        return self.T_hot + (self.T_cold - self.T_hot) * xi + self.q * self.L ** 2 / (2 * self.k) * xi * (1 - xi)

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, 2 * width)
        self.fc2 = nn.Linear(2 * width, width)

    def forward(self, h):
        return h + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(h))))


class DockResMLP(nn.Module):
    """Pre-norm residual MLP over the features and a station embedding."""

    def __init__(self, mcfg, n_features, n_stations):
        super().__init__()
        self.embed = nn.Embedding(n_stations, mcfg.embed_dim)
        self.inp = nn.Linear(n_features + mcfg.embed_dim, mcfg.hidden)
        self.blocks = nn.Sequential(*[Block(mcfg.hidden) for _ in range(mcfg.depth)])
        self.norm = nn.LayerNorm(mcfg.hidden)
        self.head = nn.Linear(mcfg.hidden, 1)

    def forward(self, x, station):
        h = self.inp(torch.cat([x, self.embed(station)], dim=-1))
        return self.head(self.norm(self.blocks(h))).squeeze(-1)

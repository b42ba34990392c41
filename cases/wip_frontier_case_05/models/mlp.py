import torch
from torch import nn


class DockMLP(nn.Module):
    """MLP over the features and a learned station embedding."""

    def __init__(self, mcfg, n_features, n_stations):
        super().__init__()
        self.embed = nn.Embedding(n_stations, mcfg.embed_dim)
        layers, width = [], n_features + mcfg.embed_dim
        for _ in range(mcfg.depth):
            layers += [nn.Linear(width, mcfg.hidden), nn.GELU()]
            width = mcfg.hidden
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, 1)
        nn.init.normal_(self.embed.weight, std=0.5)

    def forward(self, x, station):
        h = torch.cat([x, self.embed(station)], dim=-1)
        return self.head(self.body(h)).squeeze(-1)

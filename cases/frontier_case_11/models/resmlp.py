import torch.nn as nn

from models.heads import RateHead


class ResidualBlock(nn.Module):
    def __init__(self, width, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.ff = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Dropout(dropout), nn.Linear(2 * width, width))

    def forward(self, h):
        return h + self.ff(self.norm(h))


class ResidualRateMLP(nn.Module):
    """Input projection, `depth` pre-norm residual blocks, rate head."""

    def __init__(self, n_inputs, scale_kwh, hidden=96, depth=3, dropout=0.1):
        super().__init__()
        self.inp = nn.Linear(n_inputs, hidden)
        self.blocks = nn.Sequential(*[ResidualBlock(hidden, dropout) for _ in range(depth)])
        self.norm = nn.LayerNorm(hidden)
        self.head = RateHead(hidden, scale_kwh)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.inp(x))))

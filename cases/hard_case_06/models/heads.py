import torch.nn as nn
import torch.nn.functional as F


class GaussianHead(nn.Module):
    """Two outputs per row: the mean, and a variance kept above `min_var` by a softplus."""

    def __init__(self, width, min_var=1e-4):
        super().__init__()
        self.proj = nn.Linear(width, 2)
        self.min_var = min_var

    def forward(self, h):
        mu, raw_var = self.proj(h).unbind(dim=-1)
        return mu, F.softplus(raw_var) + self.min_var

import torch
import torch.nn as nn
import torch.nn.functional as F


class RateHead(nn.Module):
    """One output per row: the expected energy, softplus(z) times a fixed scale in kWh.

    The scale (the export's mean hourly energy) lets the projection start near the right magnitude.
    """

    def __init__(self, width, scale_kwh):
        super().__init__()
        self.proj = nn.Linear(width, 1)
        self.register_buffer("scale", torch.tensor(float(scale_kwh)))

    def forward(self, h):
        return F.softplus(self.proj(h).squeeze(-1)) * self.scale

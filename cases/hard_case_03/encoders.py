"""Glyph encoders: image -> unit-norm embedding."""

import torch.nn as nn
import torch.nn.functional as F

from glyphs import SIZE


class ConvEncoder(nn.Module):
    def __init__(self, dim=64, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(width * (SIZE // 2) ** 2, dim),
        )

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


class MLPEncoder(nn.Module):
    def __init__(self, dim=64, width=256):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(SIZE * SIZE, width), nn.ReLU(), nn.Linear(width, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


def build_encoder(model_cfg):
    if model_cfg.encoder == "conv":
        return ConvEncoder(model_cfg.dim, model_cfg.width)
    if model_cfg.encoder == "mlp":
        return MLPEncoder(model_cfg.dim, max(model_cfg.width, 64) * 8)
    raise ValueError(f"model.encoder: unknown encoder {model_cfg.encoder!r} (conv, mlp)")


def count_parameters(module):
    """Trainable parameters, for the run header."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)

"""Layers shared by the models."""

import torch
import torch.nn as nn


class ChannelNorm(nn.Module):
    """LayerNorm over the channel axis of a (batch, channels, time) tensor."""

    def __init__(self, channels):
        super().__init__()
        self.norm = nn.LayerNorm(channels)

    def forward(self, x):
        return self.norm(x.transpose(1, 2)).transpose(1, 2)


class ConvBlock(nn.Module):
    """Pre-norm residual 1-D convolution: x + conv(gelu(norm(x)))."""

    def __init__(self, channels, kernel_size, dropout=0.0):
        super().__init__()
        self.norm = ChannelNorm(channels)
        self.conv = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        return x + self.drop(self.conv(self.act(self.norm(x))))


class Stem(nn.Module):
    """Lift the raw sensor channels to the model width."""

    def __init__(self, in_channels, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, channels, kernel_size, padding=kernel_size // 2)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.conv(x))


def mlp(sizes, dropout=0.0):
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def init_linear_(module, std=0.02):
    """Small-normal init for the output layer so that the first predictions are near uniform."""
    nn.init.normal_(module.weight, std=std)
    if module.bias is not None:
        nn.init.zeros_(module.bias)
    return module


@torch.no_grad()
def layer_norms(model):
    return {name: p.norm().item() for name, p in model.named_parameters() if p.dim() > 1}

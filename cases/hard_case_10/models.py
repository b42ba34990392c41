"""Networks for a scalar field u(x) on [0, L], in float64.

Each network maps a normalised coordinate z in [-1, 1] to an O(1) number; `ScaledField` does the
mapping from x (the problem's own coordinate) and multiplies the output by the problem's
output_scale, so the same network works for a 1 mm plate and a unit interval.
"""

from __future__ import annotations

import math

import torch
import torch.nn as nn

ACTIVATIONS = {"tanh": nn.Tanh, "sin": None, "gelu": nn.GELU}


class Sine(nn.Module):
    def forward(self, x):
        return torch.sin(x)


def activation(name: str) -> nn.Module:
    if name not in ACTIVATIONS:
        raise KeyError(f"unknown activation {name!r} (known: {', '.join(ACTIVATIONS)})")
    return Sine() if name == "sin" else ACTIVATIONS[name]()


class MLP(nn.Module):
    def __init__(self, n_in=1, hidden=20, depth=2, act="tanh"):
        super().__init__()
        layers, width = [], n_in
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), activation(act)]
            width = hidden
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        return self.net(z)


class FourierMLP(nn.Module):
    """Random Fourier features [sin(2 pi B z), cos(2 pi B z)] (fixed B ~ N(0, sigma^2)) before an
    MLP: helps with oscillatory solutions."""

    def __init__(self, hidden=20, depth=2, act="tanh", features=8, sigma=1.0):
        super().__init__()
        self.register_buffer("B", torch.randn(1, features) * sigma)
        self.mlp = MLP(2 * features, hidden, depth, act)

    def forward(self, z):
        proj = 2 * math.pi * z @ self.B
        return self.mlp(torch.cat([torch.sin(proj), torch.cos(proj)], dim=-1))


class ResidualMLP(nn.Module):
    """Pre-activation residual blocks of constant width."""

    def __init__(self, hidden=20, depth=2, act="tanh"):
        super().__init__()
        self.inp = nn.Linear(1, hidden)
        self.blocks = nn.ModuleList(nn.Sequential(activation(act), nn.Linear(hidden, hidden)) for _ in range(depth))
        self.out = nn.Sequential(activation(act), nn.Linear(hidden, 1))

    def forward(self, z):
        h = self.inp(z)
        for block in self.blocks:
            h = h + block(h)
        return self.out(h)


class ScaledField(nn.Module):
    """u(x) = output_scale * net(2 x / L - 1): the network sees [-1, 1] and returns O(1)."""

    def __init__(self, net: nn.Module, L: float, output_scale: float):
        super().__init__()
        self.net = net
        self.L = L
        self.output_scale = output_scale

    def forward(self, x):
        z = 2.0 * x / self.L - 1.0
        return self.output_scale * self.net(z)


MODELS = {"mlp": MLP, "fourier": FourierMLP, "resmlp": ResidualMLP}


def build_model(model_cfg, problem) -> ScaledField:
    if model_cfg.kind == "mlp":
        net = MLP(1, model_cfg.hidden, model_cfg.depth, model_cfg.activation)
    elif model_cfg.kind == "fourier":
        net = FourierMLP(model_cfg.hidden, model_cfg.depth, model_cfg.activation, model_cfg.fourier_features,
                         model_cfg.fourier_sigma)
    elif model_cfg.kind == "resmlp":
        net = ResidualMLP(model_cfg.hidden, model_cfg.depth, model_cfg.activation)
    else:
        raise KeyError(f"unknown model kind {model_cfg.kind!r} (known: {', '.join(MODELS)})")
    if model_cfg.init == "xavier":
        xavier_init(net)
    elif model_cfg.init != "default":
        raise KeyError(f"unknown init {model_cfg.init!r} (known: default, xavier)")
    return ScaledField(net.double(), problem.L, problem.output_scale)


def xavier_init(module: nn.Module) -> None:
    """Glorot-normal weights and zero biases for every Linear layer (a common PINN choice for tanh)."""
    for layer in module.modules():
        if isinstance(layer, nn.Linear):
            nn.init.xavier_normal_(layer.weight)
            nn.init.zeros_(layer.bias)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

"""CollarNet: an MLP over a window's inputs, built from the architecture file."""

import torch
from torch import nn

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "elu": nn.ELU, "swish": nn.SiLU}


def _init_linear(layer, scheme):
    if scheme == "glorot_uniform":
        nn.init.xavier_uniform_(layer.weight)
    elif scheme == "he_normal":
        nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
    elif scheme != "default":
        raise ValueError(f"unknown kernel_init {scheme!r}")
    if scheme != "default":
        nn.init.zeros_(layer.bias)


def dense_block(n_in, n_out, arch):
    """Linear -> [BatchNorm] -> activation -> [Dropout], with the architecture file's settings."""
    linear = nn.Linear(n_in, n_out)
    _init_linear(linear, arch.get("kernel_init", "default"))
    layers = [linear]
    if arch.get("batch_norm", False):
        layers.append(nn.BatchNorm1d(n_out, eps=arch.get("bn_epsilon", 1e-5),
                                     momentum=arch.get("bn_momentum", 0.1)))
    layers.append(ACTIVATIONS[arch.get("activation", "relu")]())
    if arch.get("dropout", 0.0) > 0:
        layers.append(nn.Dropout(arch["dropout"]))
    return layers


class CollarNet(nn.Module):
    def __init__(self, n_inputs, classes, arch):
        super().__init__()
        self.classes = tuple(classes)
        layers, n = [], n_inputs
        for width in arch["hidden"]:
            layers += dense_block(n, width, arch)
            n = width
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(n, len(self.classes))
        _init_linear(self.head, arch.get("kernel_init", "default"))

    def forward(self, x):
        return self.head(self.body(x))

    @torch.no_grad()
    def predict(self, x):
        return self.forward(x).argmax(dim=-1)


def build_collarnet(n_inputs, classes, arch):
    return CollarNet(n_inputs, classes, arch)

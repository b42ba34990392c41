"""Model registry: every model maps (batch, features) to the mean and variance of the scaled target."""

from models.linear import LinearGaussian
from models.mlp import GaussianMLP
from models.resmlp import ResidualMLP

REGISTRY = {"linear": LinearGaussian, "mlp": GaussianMLP, "resmlp": ResidualMLP}


def build_model(cfg, n_inputs):
    if cfg.name not in REGISTRY:
        raise ValueError(f"unknown model '{cfg.name}' (known: {', '.join(REGISTRY)})")
    if cfg.name == "linear":
        return LinearGaussian(n_inputs, min_var=cfg.min_var)
    return REGISTRY[cfg.name](n_inputs, hidden=cfg.hidden, depth=cfg.depth, dropout=cfg.dropout, min_var=cfg.min_var)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())

"""Model registry: every model maps (batch, features) to the expected next-hour energy in kWh (> 0)."""

from models.linear import LinearRate
from models.mlp import RateMLP
from models.resmlp import ResidualRateMLP

REGISTRY = {"linear": LinearRate, "mlp": RateMLP, "resmlp": ResidualRateMLP}


def build_model(cfg, n_inputs, scale_kwh):
    if cfg.name not in REGISTRY:
        raise ValueError(f"unknown model '{cfg.name}' (known: {', '.join(REGISTRY)})")
    if cfg.name == "linear":
        return LinearRate(n_inputs, scale_kwh)
    return REGISTRY[cfg.name](n_inputs, scale_kwh, hidden=cfg.hidden, depth=cfg.depth, dropout=cfg.dropout)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())

"""Model registry: `build_model(cfg.model, n_features, n_stations)`."""

from models.linear import LinearDock
from models.mlp import DockMLP
from models.residual import DockResMLP

REGISTRY = {"linear": LinearDock, "mlp": DockMLP, "resmlp": DockResMLP}


def build_model(mcfg, n_features, n_stations):
    if mcfg.name not in REGISTRY:
        raise KeyError(f"unknown model {mcfg.name!r}; known: {sorted(REGISTRY)}")
    return REGISTRY[mcfg.name](mcfg, n_features, n_stations)


def count_params(model):
    return sum(p.numel() for p in model.parameters())

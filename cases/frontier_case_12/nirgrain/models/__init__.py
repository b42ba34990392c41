"""Model registry: ``build_model(cfg)`` picks the architecture named by ``model.name``."""

from nirgrain.models.cnn import SpectralCNN
from nirgrain.models.mlp import FaultMLP

REGISTRY = {"mlp": FaultMLP, "cnn": SpectralCNN}


def build_model(cfg, n_classes):
    name = cfg.model.name
    if name not in REGISTRY:
        raise ValueError(f"unknown model '{name}' (known: {', '.join(sorted(REGISTRY))})")
    return REGISTRY[name].from_config(cfg, n_classes)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

"""Model registry: ``build_model(cfg, vocab_size)`` picks the architecture named by ``model.name``."""

from chatlm.models.gpt import CharGPT
from chatlm.models.gru import CharGRU

REGISTRY = {"gpt": CharGPT, "gru": CharGRU}


def build_model(cfg, vocab_size):
    if cfg.model.name not in REGISTRY:
        raise ValueError(f"unknown model '{cfg.model.name}' (known: {', '.join(sorted(REGISTRY))})")
    return REGISTRY[cfg.model.name].from_config(cfg, vocab_size)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())

from models.cnn import WaferCNN
from models.linear import LinearProbe

REGISTRY = {"wafercnn": WaferCNN, "linear": LinearProbe}


def build_model(cfg, n_classes):
    if cfg.name not in REGISTRY:
        raise KeyError(f"unknown model {cfg.name!r}; known: {sorted(REGISTRY)}")
    if cfg.name == "linear":
        return LinearProbe(n_classes)
    return REGISTRY[cfg.name](n_classes, width=cfg.width, dropout=cfg.dropout)

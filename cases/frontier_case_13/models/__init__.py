from models.cnn import WaferCNN
from models.linear import LinearProbe
from models.mlp import MapMLP

REGISTRY = {"wafercnn": WaferCNN, "linear": LinearProbe, "mlp": MapMLP}


def build_model(cfg, n_classes, side=None):
    if cfg.name not in REGISTRY:
        raise KeyError(f"unknown model {cfg.name!r}; known: {sorted(REGISTRY)}")
    if cfg.name == "linear":
        return LinearProbe(n_classes)
    if cfg.name == "mlp":
        if side is None:
            raise ValueError("the mlp needs the input side")
        return MapMLP(n_classes, side, hidden=8 * cfg.width, dropout=cfg.dropout)
    return REGISTRY[cfg.name](n_classes, width=cfg.width, dropout=cfg.dropout)

"""Model registry: ``model.name`` in the config picks the architecture."""

from har.models.attnpool import AttnPoolNet
from har.models.blocks import count_parameters
from har.models.gru import GRUNet
from har.models.mlp import WindowMLP

REGISTRY = ("mlp", "attnpool", "gru")


def build_model(model_cfg, data_cfg):
    if model_cfg.name == "mlp":
        return WindowMLP(data_cfg.n_channels, data_cfg.window, data_cfg.n_classes,
                         hidden=model_cfg.hidden, depth=model_cfg.depth, dropout=model_cfg.dropout)
    if model_cfg.name == "attnpool":
        return AttnPoolNet(data_cfg.n_channels, data_cfg.n_classes, channels=model_cfg.channels,
                           depth=model_cfg.depth, kernel_size=model_cfg.kernel_size, dropout=model_cfg.dropout)
    if model_cfg.name == "gru":
        return GRUNet(data_cfg.n_channels, data_cfg.n_classes, hidden=model_cfg.channels,
                      depth=model_cfg.depth, dropout=model_cfg.dropout)
    raise ValueError(f"unknown model {model_cfg.name!r} (known: {', '.join(REGISTRY)})")


__all__ = ["AttnPoolNet", "GRUNet", "REGISTRY", "WindowMLP", "build_model", "count_parameters"]

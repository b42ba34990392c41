"""Model registry: build a gesture model from the [model] section of the config."""

from attention_net import AttentionNet
from conv_net import ConvNet
from recurrent_net import RecurrentNet

KINDS = ("conv", "gru", "attention")


def build_model(model_cfg, n_channels, n_classes):
    """The model ``model_cfg.kind`` names, with its hyperparameters from the config."""
    if model_cfg.kind == "conv":
        return ConvNet(n_channels, n_classes, model_cfg.hidden, model_cfg.dropout,
                       kernel=model_cfg.kernel, layers=model_cfg.layers)
    if model_cfg.kind == "gru":
        return RecurrentNet(n_channels, n_classes, model_cfg.hidden, model_cfg.dropout,
                            layers=model_cfg.layers, pool=model_cfg.pool)
    if model_cfg.kind == "attention":
        return AttentionNet(n_channels, n_classes, model_cfg.hidden, model_cfg.dropout,
                            layers=model_cfg.layers, pool=model_cfg.pool)
    raise ValueError(f"model.kind: unknown model {model_cfg.kind!r} (known: {', '.join(KINDS)})")


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

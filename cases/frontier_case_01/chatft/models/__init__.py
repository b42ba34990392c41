"""Model registry: ``model.name`` in the config picks the architecture."""

from chatft.models.gpt import TinyGPT
from chatft.models.gru import GRULM

REGISTRY = ("gpt", "gru")


def build_model(model_cfg, vocab_size, block_size):
    if model_cfg.name == "gpt":
        return TinyGPT(vocab_size, model_cfg.d_model, model_cfg.n_head, model_cfg.n_layer,
                       block_size=block_size, dropout=model_cfg.dropout)
    if model_cfg.name == "gru":
        return GRULM(vocab_size, model_cfg.d_model, model_cfg.n_layer, model_cfg.dropout)
    raise ValueError(f"unknown model {model_cfg.name!r} (known: {', '.join(REGISTRY)})")


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


__all__ = ["GRULM", "REGISTRY", "TinyGPT", "build_model", "count_parameters"]

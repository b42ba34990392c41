"""Model registry."""

from models.bag import BagOfEvents
from models.encoder import EventEncoder
from models.gru import EventGRU


def build_model(cfg, vocab_size, n_classes, max_len):
    if cfg.kind == "encoder":
        return EventEncoder(vocab_size, n_classes, cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.d_ff, cfg.dropout,
                            max_len, cfg.attention)
    if cfg.kind == "gru":
        return EventGRU(vocab_size, n_classes, cfg.d_model, cfg.dropout)
    if cfg.kind == "bag":
        return BagOfEvents(vocab_size, n_classes, cfg.d_model, cfg.d_ff, cfg.dropout)
    raise ValueError(f"unknown model kind {cfg.kind!r}")


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)

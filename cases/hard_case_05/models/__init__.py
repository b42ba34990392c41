"""Model registry: `build_model(cfg.model, vocab_size, block_size)` by name."""

from models.bigram import Bigram
from models.mlp import CharMLP
from models.wavenet import WaveNet

REGISTRY = {"bigram": Bigram, "mlp": CharMLP, "wavenet": WaveNet}


def build_model(cfg, vocab_size, block_size):
    if cfg.name not in REGISTRY:
        raise ValueError(f"unknown model '{cfg.name}' (known: {', '.join(REGISTRY)})")
    if cfg.name == "bigram":
        return Bigram(vocab_size)
    return REGISTRY[cfg.name](vocab_size, block_size=block_size, n_embd=cfg.n_embd, hidden=cfg.hidden,
                              dropout=cfg.dropout)


def count_parameters(model):
    return sum(p.numel() for p in model.parameters())

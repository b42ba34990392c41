import pytest
import torch

from optim import build_optimizer, lr_factor, param_groups
from config import load_config
from models import build_model


def test_cosine_shape():
    f = [lr_factor(e, 12, warmup_epochs=1, min_lr_ratio=0.1) for e in range(12)]
    assert f[0] == pytest.approx(0.5)
    assert f[1] == pytest.approx(1.0)
    assert f[-1] == pytest.approx(0.1)
    assert all(a >= b for a, b in zip(f[1:], f[2:]))


def test_embeddings_and_biases_are_not_decayed():
    cfg = load_config("configs/dock.toml")
    model = build_model(cfg.model, 12, 6)
    decay, no_decay = param_groups(model, 1e-4)
    assert all(p.ndim == 2 for p in decay["params"])
    assert any(p.shape == model.embed.weight.shape for p in no_decay["params"])
    assert isinstance(build_optimizer(model, cfg.optim), torch.optim.AdamW)

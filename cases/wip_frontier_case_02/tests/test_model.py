import torch

from config import load_arch, load_config
from models import build_collarnet


def test_model_from_arch_file():
    arch = load_arch("configs/collar_mlp.toml")
    model = build_collarnet(24, ("a", "b", "c"), arch)
    assert model(torch.zeros(4, 24)).shape == (4, 3)
    assert sum(isinstance(m, torch.nn.BatchNorm1d) for m in model.body) == len(arch["hidden"])


def test_arch_without_batch_norm():
    arch = dict(load_arch("configs/collar_mlp.toml"), batch_norm=False, dropout=0.0)
    model = build_collarnet(24, ("a", "b"), arch)
    assert not any(isinstance(m, torch.nn.BatchNorm1d) for m in model.body)
    assert model(torch.zeros(1, 24)).shape == (1, 2)


def test_config_overrides():
    cfg = load_config("configs/herd26.toml", ["train.seed=3", "data.batch_size=64"])
    assert cfg.train.seed == 3 and cfg.data.batch_size == 64

import pytest

from config import load_config


def test_inherit_and_override():
    cfg = load_config("configs/wide.toml", ["train.seed=3", "optim.lr=0.01"])
    assert cfg.model.name == "mlp" and cfg.model.hidden == 128
    assert cfg.optim.schedule == "cosine"
    assert cfg.train.seed == 3 and cfg.optim.lr == 0.01


def test_unknown_key_is_an_error():
    with pytest.raises(KeyError):
        load_config("configs/dock.toml", ["optim.lrr=0.1"])

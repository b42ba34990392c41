import pytest

from config import ConfigError, load_config


def test_fleet_inherits_base():
    cfg = load_config("configs/fleet.toml")
    assert cfg.model.name == "mlp" and cfg.optim.schedule == "cosine"
    assert cfg.train.epochs == 4 and cfg.train.batch_size == 32 and cfg.data.holdout_days == 7


def test_overrides():
    cfg = load_config("configs/fleet.toml", ["train.seed=2", "optim.lr=1e-3", "data.sites=hub-north,depot-fleet"])
    assert cfg.train.seed == 2 and cfg.optim.lr == 1e-3 and cfg.data.sites == ["hub-north", "depot-fleet"]


def test_bad_override():
    with pytest.raises(ConfigError):
        load_config("configs/base.toml", ["optim.schedule=linear"])

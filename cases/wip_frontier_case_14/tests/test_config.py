import pytest

from pumpwatch.config import ConfigError, load_config


def test_plant_config_inherits_base():
    cfg = load_config("configs/plant.toml")
    assert cfg.name == "plant" and cfg.data.n_train == 1200 and cfg.model.width == 32


def test_override_is_typed():
    cfg = load_config("configs/plant.toml", ["optim.lr=1e-3", "trainer.epochs=3"])
    assert cfg.optim.lr == 1e-3 and cfg.trainer.epochs == 3


def test_unknown_key_fails():
    with pytest.raises(ConfigError):
        load_config("configs/plant.toml", ["optim.lrr=1"])

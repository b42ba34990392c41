import pytest

from config import ConfigError, load_config


def test_experiment_inherits_base():
    cfg = load_config("configs/experiment.toml")
    assert cfg.model.name == "mlp" and cfg.features.normalization == "batch"
    assert cfg.train.epochs == 3 and cfg.train.batch_size == 64


def test_overrides():
    cfg = load_config("configs/experiment.toml", ["train.seed=2", "optim.lr=1e-3", "features.log_columns=lag_kwh"])
    assert cfg.train.seed == 2 and cfg.optim.lr == 1e-3 and cfg.features.log_columns == ["lag_kwh"]


def test_bad_override():
    with pytest.raises(ConfigError):
        load_config("configs/base.toml", ["features.normalization=layer"])

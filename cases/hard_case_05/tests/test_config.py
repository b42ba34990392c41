import pytest

from config import ConfigError, load_config, parse_override


def test_experiment_inherits_base():
    cfg = load_config("configs/experiment.toml")
    assert cfg.optim.name == "adamw" and cfg.model.name == "mlp"
    assert cfg.data.n_words == 3000 and cfg.train.steps == 300


def test_override_types():
    cfg = load_config("configs/experiment.toml", ["optim.lr=0.1", "train.monitors=grad_norm,saturation",
                                                  "optim.betas=[0.9, 0.95]"])
    assert cfg.optim.lr == 0.1
    assert cfg.train.monitors == ["grad_norm", "saturation"]
    assert cfg.optim.betas == [0.9, 0.95]


def test_unknown_key_is_an_error():
    with pytest.raises(ConfigError):
        load_config("configs/base.toml", ["optim.learning_rate=0.1"])


def test_parse_override_nests():
    assert parse_override("a.b.c=1") == {"a": {"b": {"c": "1"}}}

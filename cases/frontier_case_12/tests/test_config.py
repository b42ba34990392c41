import pytest

from nirgrain.config import ConfigError, load_config, parse_override


def test_experiment_inherits_base():
    cfg = load_config("configs/experiment.toml")
    assert cfg.model.name == "cnn"
    assert cfg.data.n_train == 2048          # from base.toml
    assert cfg.ema.decay == 0.99 and cfg.trainer.precise_bn_batches == 8
    assert cfg.data.dropout_bands == 0.05        # overridden
    assert cfg.optim.min_lr_ratio == 0.1     # untouched table keys survive the merge


def test_overrides_are_typed():
    cfg = load_config("configs/base.toml", ["optim.lr=3e-4", "trainer.deterministic=false", "seed=4"])
    assert cfg.optim.lr == 3e-4 and cfg.trainer.deterministic is False and cfg.seed == 4


def test_unknown_key_fails():
    with pytest.raises(ConfigError, match="optim.lrr"):
        load_config("configs/base.toml", ["optim.lrr=1"])


def test_bad_value_fails():
    with pytest.raises(ConfigError, match="data.batch_size"):
        load_config(None, ["data.batch_size=sixty"])
    with pytest.raises(ConfigError, match="eval.mode"):
        load_config(None, ["eval.mode=sometimes"])


def test_parse_override_nests():
    assert parse_override("a.b.c=1") == {"a": {"b": {"c": "1"}}}
    with pytest.raises(ConfigError):
        parse_override("novalue")

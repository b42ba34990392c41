"""Config loading: inheritance, overrides, type coercion, unknown keys."""

from pathlib import Path

import pytest

from har.config import Config, ConfigError, from_dict, load_config, merge, to_dict

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def test_base_file_spells_out_the_defaults():
    base, defaults = to_dict(load_config(CONFIGS / "base.toml")), to_dict(Config())
    base["name"], base["train"]["out_dir"] = defaults["name"], defaults["train"]["out_dir"]
    assert base == defaults


def test_experiment_inherits_and_overrides_base():
    cfg = load_config(CONFIGS / "experiment.toml")
    assert cfg.model.name == "attnpool"
    assert cfg.data.n_train == 3000  # from base.toml
    assert cfg.data.jitter == 0.05  # from experiment.toml


def test_set_overrides_are_typed():
    cfg = load_config(CONFIGS / "experiment.toml", ["optim.lr=0.2", "train.steps=10", "optim.nesterov=false"])
    assert cfg.optim.lr == 0.2 and isinstance(cfg.optim.lr, float)
    assert cfg.train.steps == 10 and isinstance(cfg.train.steps, int)
    assert cfg.optim.nesterov is False


def test_unknown_keys_are_errors():
    with pytest.raises(ConfigError):
        load_config(None, ["optim.learning_rate=0.1"])
    with pytest.raises(ConfigError):
        load_config(None, ["optimizer.lr=0.1"])
    with pytest.raises(ConfigError):
        load_config(None, ["no_equals_sign"])


def test_merge_is_recursive():
    assert merge({"a": {"x": 1, "y": 2}}, {"a": {"y": 3}}) == {"a": {"x": 1, "y": 3}}


def test_round_trip():
    cfg = load_config(CONFIGS / "experiment.toml")
    assert from_dict(to_dict(cfg)) == cfg
    assert from_dict(to_dict(Config())) == Config()

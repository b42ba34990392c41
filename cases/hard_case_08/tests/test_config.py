import pytest

from chatlm.config import ConfigError, load_config, parse_override


def test_sft_inherits_base():
    cfg = load_config("configs/sft.toml")
    assert cfg.name == "sft-chat" and cfg.data.cache_dir == "cache/tok"
    assert cfg.data.max_len == 128 and cfg.train.steps == 80


def test_overrides_are_typed():
    cfg = load_config("configs/base.toml", ["optim.lr=1e-3", "data.overwrite_cache=true", "seed=2"])
    assert cfg.optim.lr == 1e-3 and cfg.data.overwrite_cache is True and cfg.seed == 2


def test_bad_keys_and_values_fail():
    with pytest.raises(ConfigError, match="data.templat"):
        load_config(None, ["data.templat=x.json"])
    with pytest.raises(ConfigError, match="divisible"):
        load_config(None, ["model.n_head=5"])
    with pytest.raises(ConfigError):
        parse_override("steps")

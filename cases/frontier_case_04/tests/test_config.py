import pytest

from config import load_config


def test_file_and_overrides():
    cfg = load_config("configs/spring26.toml", ["train.seed=3", "data.row_len=48"])
    assert cfg.train.seed == 3 and cfg.data.row_len == 48
    assert cfg.model.dim == 48


def test_unknown_key():
    with pytest.raises(KeyError):
        load_config(None, ["train.nope=1"])


def test_bad_override():
    with pytest.raises(KeyError):
        load_config(None, ["seed=1"])

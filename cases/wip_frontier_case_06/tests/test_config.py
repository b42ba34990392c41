import pytest

from config import load_config


def test_overrides_apply_and_coerce():
    cfg = load_config("configs/router.toml", ["train.seed=3", "optim.lr=0.001", "model.pool=cls"])
    assert cfg.train.seed == 3 and cfg.optim.lr == 0.001 and cfg.model.pool == "cls"


def test_unknown_key_is_an_error():
    with pytest.raises(KeyError):
        load_config(None, ["train.sead=1"])

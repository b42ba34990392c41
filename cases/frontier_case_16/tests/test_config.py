from pathlib import Path

import pytest

from config import load_config

ROOT = Path(__file__).resolve().parents[1]


def test_inherit_and_override():
    cfg = load_config(ROOT / "configs/home.toml", ["train.seed=3", "model.d_model=32"])
    assert cfg.name == "home-encoder" and cfg.model.kind == "encoder"
    assert cfg.train.seed == 3 and cfg.model.d_model == 32


def test_unknown_key():
    with pytest.raises(KeyError):
        load_config(ROOT / "configs/home.toml", ["train.nope=1"])


def test_every_config_loads():
    for path in sorted((ROOT / "configs").glob("*.toml")):
        cfg = load_config(path)
        assert cfg.model.kind in ("encoder", "gru", "bag"), path

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from config import Config, load_config  # noqa: E402


def test_defaults_match_ship_config():
    cfg = load_config(ROOT / "configs" / "ili.toml")
    assert cfg.data.batch_size == Config().data.batch_size
    assert cfg.train.epochs == Config().train.epochs
    assert cfg.data.val_runs == "R2603,R2607"


def test_overrides_are_typed():
    cfg = load_config(None, ["train.seed=3", "train.lr=1e-3", "data.val_runs=R2601"])
    assert cfg.train.seed == 3 and isinstance(cfg.train.seed, int)
    assert cfg.train.lr == pytest.approx(1e-3)
    assert cfg.data.val_runs == "R2601"


def test_unknown_keys_rejected():
    with pytest.raises(KeyError):
        load_config(None, ["train.sede=1"])
    with pytest.raises(KeyError):
        load_config(None, ["trian.seed=1"])

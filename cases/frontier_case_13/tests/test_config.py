from config import load_config


def test_inherit_and_override():
    cfg = load_config("configs/wide.toml", ["train.lr=1e-3", "augment.enabled=false"])
    assert cfg.model.width == 32
    assert cfg.model.dropout == 0.1
    assert cfg.train.lr == 1e-3
    assert cfg.augment.enabled is False


def test_unknown_key_raises():
    try:
        load_config(None, ["train.nope=1"])
    except KeyError:
        return
    raise AssertionError("unknown key accepted")

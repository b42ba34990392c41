import torch

from config import load_config
from models import load_pretrained


def test_pretrained_loads():
    model, (mean, std) = load_pretrained("pretrained/climnet_2025.npz")
    assert model.classes == ("normal", "heating_fault", "vent_stuck", "screen_fault")
    assert mean.shape == std.shape == (40,)
    assert model(torch.zeros(3, 40)).shape == (3, 4)


def test_adapt_to_labels_gives_one_output_per_class():
    model, _ = load_pretrained("pretrained/climnet_2025.npz")
    backbone = {k: v.clone() for k, v in model.backbone.state_dict().items()}
    model.adapt_to_labels(("a", "b", "c", "d", "e"))
    assert model(torch.zeros(2, 40)).shape == (2, 5)
    assert all(torch.equal(v, model.backbone.state_dict()[k]) for k, v in backbone.items())


def test_config_overrides():
    cfg = load_config("configs/season26.toml", ["train.seed=3", "data.balanced=false"])
    assert cfg.train.seed == 3 and cfg.data.balanced is False

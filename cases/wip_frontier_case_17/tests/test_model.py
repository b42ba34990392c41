import torch

from config import load_config
from models import load_pretrained


def test_pretrained_loads():
    model, (mean, std) = load_pretrained("pretrained/wheelnet_2025.npz")
    assert model.classes == ("sound", "flat_spot", "out_of_round", "shelled")
    assert mean.shape == std.shape == (40,)
    assert model(torch.zeros(3, 40)).shape == (3, 4)


def test_adapt_to_labels_gives_one_output_per_class():
    model, _ = load_pretrained("pretrained/wheelnet_2025.npz")
    model.adapt_to_labels(("a", "b", "c", "d", "e"))
    assert model(torch.zeros(2, 40)).shape == (2, 5)
    assert model.classes == ("a", "b", "c", "d", "e")


def test_config_overrides():
    cfg = load_config("configs/fleet26.toml", ["train.seed=3", "data.batch_size=32"])
    assert cfg.train.seed == 3 and cfg.data.batch_size == 32

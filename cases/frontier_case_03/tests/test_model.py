import torch

from augment import CollarAugment
from models import HerdNet


def test_forward_shape():
    model = HerdNet(20, ("a", "b", "c", "d"))
    assert model(torch.zeros(5, 20)).shape == (5, 4)


def test_augment_keeps_shape_and_drops_some_readings():
    torch.manual_seed(0)
    x = torch.ones(10000)
    out = CollarAugment(gain_sd=0.0, noise_sd=0.0, dropout=0.1)(x)
    assert out.shape == (10000,)
    assert 0.08 < float((out == 0).float().mean()) < 0.12

import torch

from augment import BandJitter
from model import PickNet


def test_forward_shape():
    net = PickNet(17, ("a", "b", "c"), hidden=8)
    assert net(torch.zeros(4, 17)).shape == (4, 3)


def test_jitter_leaves_gap_alone():
    torch.manual_seed(0)
    x = torch.zeros(41)
    y = BandJitter()(x, 16)
    assert y[40] == 0 and float(y[:16].abs().sum()) > 0 and float(y[16:40].abs().sum()) > 0
    assert float(x.abs().sum()) == 0

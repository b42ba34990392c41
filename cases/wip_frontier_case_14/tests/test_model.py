import torch

from pumpwatch.config import load_config
from pumpwatch.metrics import confusion, macro_f1
from pumpwatch.models import build_model


def test_shapes_and_backward():
    cfg = load_config("configs/plant.toml")
    model = build_model(cfg, 33, 5)
    out = model(torch.randn(8, 33, 15))
    assert out.shape == (8, 5)
    out.sum().backward()


def test_macro_f1_perfect():
    y = torch.tensor([0, 1, 2, 3, 4, 4])
    assert abs(macro_f1(confusion(y, y, 5)) - 1.0) < 1e-6

import pytest
import torch

from config import load_config
from models import REGISTRY, build_model, count_params


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_model_maps_rows_to_one_output(name):
    cfg = load_config("configs/dock.toml", [f"model.name={name}"])
    model = build_model(cfg.model, 12, 6)
    x = torch.randn(5, 12)
    s = torch.tensor([0, 1, 2, 3, 5])
    out = model(x, s)
    assert out.shape == (5,)
    assert count_params(model) > 0


def test_unknown_model_is_an_error():
    cfg = load_config("configs/dock.toml", ["model.name=transformer"])
    with pytest.raises(KeyError):
        build_model(cfg.model, 12, 6)

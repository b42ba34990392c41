import torch

from config import load_config
from model import build_model
from optim import build_optimizer, lr_factor


def test_forward_shape_and_padding_invariance():
    cfg = load_config("configs/router.toml")
    torch.manual_seed(0)
    model = build_model(cfg.model, 50, 8, cfg.data.max_len, 4).eval()
    ids = torch.randint(2, 50, (3, cfg.data.max_len))
    lengths = torch.tensor([5, 9, cfg.data.max_len])
    activity = torch.full((3, 4), 0.25)
    out = model(ids, lengths, activity)
    assert out.shape == (3, 8)
    ids2 = ids.clone()
    ids2[0, 5:] = 0
    assert torch.allclose(model(ids2, lengths, activity), out, atol=1e-6)


def test_every_parameter_is_optimized_once():
    cfg = load_config("configs/router.toml")
    model = build_model(cfg.model, 50, 8, cfg.data.max_len, 4)
    opt = build_optimizer(model, cfg.optim)
    seen = [id(p) for g in opt.param_groups for p in g["params"]]
    assert len(seen) == len(set(seen)) == len(list(model.parameters()))


def test_schedule_warms_up_then_decays():
    assert lr_factor(0, 100, 10) == 0.1
    assert lr_factor(9, 100, 10) == 1.0
    assert abs(lr_factor(100, 100, 10) - 0.1) < 1e-9

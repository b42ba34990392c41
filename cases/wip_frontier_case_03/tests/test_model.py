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


def test_trainer_schedule_warms_up_then_decays():
    from optim import build_optimizer, warmup_cosine
    model = HerdNet(20, ("a", "b", "c", "d"))
    opt = build_optimizer(model, 1e-3, 0.01)
    sched = warmup_cosine(opt, warmup_steps=10, total_steps=100)
    lrs = []
    for _ in range(100):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs[0] < lrs[9] and max(lrs) <= 1e-3 + 1e-12 and lrs[-1] < lrs[50]
    assert opt.param_groups[1]["weight_decay"] == 0.0

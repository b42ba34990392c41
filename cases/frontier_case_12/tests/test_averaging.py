import torch
import torch.nn as nn

from nirgrain.engine.averaging import ExponentialAverage


def _net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))


def _train(model, average, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        x, y = torch.randn(32, 8) + 0.5, torch.randint(0, 3, (32,))
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        average.update()


def test_zero_decay_copies_the_model():
    model = _net()
    average = ExponentialAverage(model, decay=0.0)
    _train(model, average, 5)
    for (name, a), b in zip(average.state_dict().items(), model.state_dict().values()):
        assert torch.equal(a, b), name


def test_average_follows_weights_and_statistics():
    model = _net()
    average = ExponentialAverage(model, decay=0.9)
    start = {k: v.clone() for k, v in average.state_dict().items()}
    _train(model, average, 60)
    live = model.state_dict()
    for name, a in average.state_dict().items():
        if not a.is_floating_point():
            assert torch.equal(a, live[name]), name
            continue
        moved = (a - start[name]).norm()
        assert moved > 0, name
        assert (a - live[name]).norm() < (start[name] - live[name]).norm(), name


def test_average_is_frozen_and_in_eval_mode():
    model = _net()
    average = ExponentialAverage(model, decay=0.99)
    assert not average.module.training
    assert all(not p.requires_grad for p in average.module.parameters())

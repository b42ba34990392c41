import copy

import torch

from optim import Adam, AdamW


def _train(model, opt, steps=30):
    gen = torch.Generator().manual_seed(0)
    for _ in range(steps):
        x = torch.randn(16, 6, generator=gen)
        y = torch.randint(0, 3, (16,), generator=gen)
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return model


def _pair():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.Tanh(), torch.nn.Linear(12, 3))
    return model, copy.deepcopy(model)


def test_adamw_matches_torch():
    ours, ref = _pair()
    _train(ours, AdamW(ours.parameters(), lr=3e-3, weight_decay=0.05))
    _train(ref, torch.optim.AdamW(ref.parameters(), lr=3e-3, weight_decay=0.05))
    for a, b in zip(ours.parameters(), ref.parameters()):
        assert torch.equal(a, b)


def test_adam_matches_torch():
    ours, ref = _pair()
    _train(ours, Adam(ours.parameters(), lr=1e-2))
    _train(ref, torch.optim.Adam(ref.parameters(), lr=1e-2))
    for a, b in zip(ours.parameters(), ref.parameters()):
        assert torch.equal(a, b)

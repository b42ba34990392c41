import torch

from optim import AdamW, WarmupCosine, clip_grad_norm


def test_adamw_matches_torch():
    torch.manual_seed(0)
    a, b = torch.nn.Linear(5, 3), torch.nn.Linear(5, 3)
    b.load_state_dict(a.state_dict())
    ours = AdamW(a.parameters(), lr=1e-2, weight_decay=0.1)
    ref = torch.optim.AdamW(b.parameters(), lr=1e-2, weight_decay=0.1)
    for _ in range(5):
        x = torch.randn(8, 5)
        for model, opt in ((a, ours), (b, ref)):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
    for p, q in zip(a.parameters(), b.parameters()):
        assert torch.allclose(p, q, atol=1e-6)


def test_clip_grad_norm():
    p = torch.nn.Parameter(torch.zeros(4))
    p.grad = torch.tensor([3.0, 4.0, 0.0, 0.0])
    assert abs(clip_grad_norm([p], 1.0) - 5.0) < 1e-6
    assert abs(p.grad.norm().item() - 1.0) < 1e-4


def test_warmup_cosine():
    s = WarmupCosine(1.0, 10, 110)
    assert abs(s(0) - 0.1) < 1e-9 and abs(s(9) - 1.0) < 1e-9 and s(110) < 1e-9

import torch

from optim import AdamW, warmup_cosine


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))


def test_matches_torch_adamw():
    a, b = _model(), _model()
    ours = AdamW(list(a.named_parameters()), lr=1e-2, weight_decay=0.1)
    decay = [p for p in b.parameters() if p.dim() >= 2]
    rest = [p for p in b.parameters() if p.dim() < 2]
    ref = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=1e-2)
    x = torch.randn(16, 4)
    for _ in range(5):
        for model, opt in ((a, ours), (b, ref)):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
    for pa, pb in zip(a.parameters(), b.parameters()):
        assert torch.allclose(pa, pb, atol=1e-6)


def test_schedule_shape():
    vals = [warmup_cosine(s, 10, 100) for s in range(100)]
    assert vals[0] == 0.1 and abs(vals[9] - 1.0) < 1e-9
    assert all(x >= 0.05 for x in vals)
    assert vals[-1] < vals[50] < vals[10]

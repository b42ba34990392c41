import torch

from models import SongFormer


def test_causal():
    torch.manual_seed(0)
    m = SongFormer(20, 20, dim=16, heads=2, layers=1, max_len=16).eval()
    x = torch.randint(1, 20, (1, 10))
    y = x.clone()
    y[0, 6:] = 3
    with torch.no_grad():
        tm = torch.zeros(1, 10, 8)
        assert torch.allclose(m(x, tm)[0, :6], m(y, tm)[0, :6], atol=1e-6)


def test_shape():
    m = SongFormer(20, 20, dim=16, heads=2, layers=1, max_len=16)
    assert m(torch.ones(3, 12, dtype=torch.long), torch.zeros(3, 12, 8)).shape == (3, 12, 20)

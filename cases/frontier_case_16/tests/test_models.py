import torch

from models import BagOfEvents, EventEncoder, EventGRU
from models.masks import masked_mean, padding_mask


def test_padding_mask():
    assert padding_mask(torch.tensor([2, 3]), 4).tolist() == [[1, 1, 0, 0], [1, 1, 1, 0]]


def test_masked_mean_ignores_padding():
    x = torch.tensor([[[1.0], [3.0], [100.0]]])
    assert masked_mean(x, padding_mask(torch.tensor([2]), 3)).item() == 2.0


def test_bag_ignores_padding():
    torch.manual_seed(0)
    model = BagOfEvents(10, 3).eval()
    short = model(torch.tensor([[4, 5]]), torch.tensor([2]))
    padded = model(torch.tensor([[4, 5, 0, 0, 0]]), torch.tensor([2]))
    assert torch.allclose(short, padded, atol=1e-6)


def test_encoder_shapes():
    torch.manual_seed(0)
    for impl in ("sdpa", "eager"):
        model = EventEncoder(10, 4, d_model=16, n_heads=2, attention=impl)
        out = model(torch.tensor([[4, 5, 6], [7, 0, 0]]), torch.tensor([3, 1]))
        assert out.shape == (2, 4) and torch.isfinite(out).all()


def test_gru_ignores_padding():
    from models import EventGRU

    torch.manual_seed(0)
    model = EventGRU(10, 3).eval()
    short = model(torch.tensor([[4, 5]]), torch.tensor([2]))
    padded = model(torch.tensor([[4, 5, 0, 0, 0]]), torch.tensor([2]))
    assert torch.allclose(short, padded, atol=1e-6)

import torch

from data import load_exports
from spectrum import band_columns, relative_levels


def _table():
    return load_exports("data/exports")


def test_other_columns_untouched():
    t = _table()
    out = relative_levels(t.features, t.feature_names)
    bands = band_columns(t.feature_names)
    assert len(bands) == 12 and out.shape == t.features.shape
    other = torch.as_tensor([i for i in range(len(t.feature_names)) if i not in set(bands)])
    assert torch.equal(out[:, other], t.features[:, other])


def test_same_shape_at_any_level():
    t = _table()
    bands = torch.as_tensor(band_columns(t.feature_names))
    raised = t.features.clone()
    raised[:, bands] += 6.0
    a = relative_levels(t.features, t.feature_names)
    b = relative_levels(raised, t.feature_names)
    assert torch.allclose(a, b, atol=1e-4)

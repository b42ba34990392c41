import numpy as np
import torch

from data import load_exports, split_by_wagon
from spectrum import band_columns, fit_band_basis, project_bands


def _split():
    return split_by_wagon(load_exports("data/exports"), 0.25, 2026)


def test_basis_carries_the_share():
    train, _ = _split()
    basis = fit_band_basis(train, share=0.97)
    assert basis.explained >= 0.97
    assert len(band_columns(train.feature_names)) == 12
    gram = basis.components @ basis.components.T
    assert np.allclose(gram, np.eye(len(gram)), atol=1e-8)


def test_projection_keeps_layout_and_other_columns():
    train, val = _split()
    basis = fit_band_basis(train)
    out = project_bands(val, basis)
    assert out.features.shape == val.features.shape and len(out) == len(val)
    other = torch.as_tensor([i for i in range(len(val.feature_names)) if i not in set(basis.columns)])
    assert torch.equal(out.features[:, other], val.features[:, other])
    again = project_bands(out, basis)
    assert torch.allclose(again.features, out.features, atol=1e-4)


def test_all_components_change_nothing():
    train, val = _split()
    basis = fit_band_basis(train, share=1.0)
    assert torch.allclose(project_bands(val, basis).features, val.features, atol=1e-4)

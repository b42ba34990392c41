"""The impact spectrum as model inputs.

The twelve band levels of a pass move together (a harder hit raises every band at once, and the spectrum's
slope and bow vary from pass to pass as a whole), so the band block is strongly collinear (see its
correlation matrix: neighbouring bands correlate above 0.9). The feature stage keeps the principal
components of the band block that carry `share` of the training passes' band variance and writes each pass
back onto the twelve bands from those components, so the backbone keeps its input layout. The basis is fitted on the training split only and applied to both splits.
"""

import dataclasses

import numpy as np
import torch

BAND_PREFIX = "band_"


@dataclasses.dataclass
class BandBasis:
    columns: np.ndarray      # the band columns of the pass table
    mean: np.ndarray         # (n_bands,) training mean
    components: np.ndarray   # (k, n_bands) leading principal axes, orthonormal rows
    explained: float         # share of the training band variance the k components carry


def band_columns(feature_names):
    return np.array([i for i, n in enumerate(feature_names) if n.startswith(BAND_PREFIX)])


def fit_band_basis(table, share=0.97):
    """The fewest leading principal components of the training bands whose variance reaches `share`."""
    cols = band_columns(table.feature_names)
    x = table.features[:, torch.as_tensor(cols)].double().numpy()
    mean = x.mean(axis=0)
    _, s, vt = np.linalg.svd(x - mean, full_matrices=False)
    ratio = np.cumsum(s ** 2) / np.sum(s ** 2)
    k = min(int(np.searchsorted(ratio, share)) + 1, len(s))
    return BandBasis(cols, mean, vt[:k], float(ratio[k - 1]))


def project_bands(table, basis):
    """A copy of `table` whose band columns are replaced by their projection on the basis."""
    x = table.features.clone()
    idx = torch.as_tensor(basis.columns)
    centred = x[:, idx].double().numpy() - basis.mean
    bands = basis.mean + (centred @ basis.components.T) @ basis.components
    x[:, idx] = torch.as_tensor(bands, dtype=x.dtype)
    return dataclasses.replace(table, features=x)

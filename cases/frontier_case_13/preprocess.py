"""Die records to model inputs: every wafer becomes one channel on the model's square grid, which
spans the wafer's diameter; a cell holds 1 where its die failed and 0 where it passed, and the area
outside the wafer sits at the pass level. The grid does not depend on the product's die size."""

import numpy as np

from wafers import FAIL


def fail_fraction(bins):
    """Bin codes -> float32 fail indicator (no die and pass are both 0)."""
    return (np.asarray(bins) == FAIL).astype(np.float32)


def die_cells(layout, grid):
    """Row and column of the grid cell under each die centre."""
    cell = layout.wafer_mm / grid
    half = layout.wafer_mm / 2
    rows = np.clip(np.floor((layout.y_mm + half) / cell), 0, grid - 1).astype(np.int64)
    cols = np.clip(np.floor((layout.x_mm + half) / cell), 0, grid - 1).astype(np.int64)
    return rows, cols


def to_grid(bins, layout, grid):
    """(n, n_dies) bin codes -> (n, grid, grid) float32 maps."""
    rows, cols = die_cells(layout, grid)
    out = np.zeros((len(bins), grid, grid), np.float32)
    out[:, rows, cols] = fail_fraction(bins)
    return out


def prepare(ms, grid):
    return to_grid(ms.bins, ms.layout, grid)


class Standardizer:
    """A single mean and scale for every cell, from the training inputs."""

    def __init__(self, x):
        self.mean = float(x.mean())
        self.std = float(x.std()) + 1e-6

    def __call__(self, x):
        return (x - self.mean) / self.std

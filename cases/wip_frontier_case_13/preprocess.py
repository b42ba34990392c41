"""Bin maps to model inputs: one channel per map, the fail bins as 1, pass as 0, and the area
outside the wafer at the pass level, resampled to the model's input grid."""

import numpy as np
import torch
import torch.nn.functional as F

from wafers import FAIL


def fail_fraction(maps):
    """(n, side, side) bin codes -> float32 fail indicator (no die and pass are both 0)."""
    return (np.asarray(maps) == FAIL).astype(np.float32)


def to_grid(x, grid):
    """Resample (n, side, side) fail indicators to (n, grid, grid), each cell the share of its area
    that failed (a die map of another size lands on the same grid)."""
    t = torch.from_numpy(np.ascontiguousarray(x)).unsqueeze(1)
    if t.shape[-1] != grid:
        t = F.interpolate(t, size=(grid, grid), mode="area")
    return t.squeeze(1).numpy()


def prepare(maps, grid):
    return to_grid(fail_fraction(maps), grid)


class Standardizer:
    """A single mean and scale for every cell, from the training inputs."""

    def __init__(self, x):
        self.mean = float(x.mean())
        self.std = float(x.std()) + 1e-6

    def __call__(self, x):
        return (x - self.mean) / self.std

"""Model inputs: each frame's readings (the three flux channels and the chainage) and how every reading changed
since the previous frame; the flux and the changes are the model's channels, standardized."""

import numpy as np
import torch

from calibration import segment_flux


def to_flux(segments):
    """Raw tool counts -> calibrated flux, one (frames, 3) array per segment."""
    return [segment_flux(s) for s in segments]


def frame_readings(flux, segments):
    """Per segment, (frames, 4): the calibrated flux channels beside the frame's chainage column."""
    return [torch.column_stack([torch.from_numpy(f), torch.from_numpy(s.chain_mm)]) for f, s in zip(flux, segments)]


def changes(table):
    """Change of every column since the previous frame; the first frame takes the second's."""
    d = table.diff(dim=0)
    return torch.cat([d[:1], d]) if len(d) else torch.zeros_like(table)


def frame_features(readings, n_flux=3):
    """(frames, 7): the flux channels and the change of each reading since the previous frame."""
    readings = torch.as_tensor(readings)
    return torch.cat([readings[:, :n_flux], changes(readings)], dim=1).numpy()


class Standardizer:
    def __init__(self, mean, std):
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.maximum(np.asarray(std, dtype=np.float32), 1e-6)

    @classmethod
    def fit(cls, feature_arrays):
        allf = np.concatenate(feature_arrays)
        return cls(allf.mean(0), allf.std(0))

    def __call__(self, f):
        return ((f - self.mean) / self.std).astype(np.float32)

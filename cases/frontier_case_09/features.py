"""Model inputs: each frame's flux (3 channels) and its change from the previous frame, standardized."""

import numpy as np

from calibration import segment_flux


def to_flux(segments):
    """Raw tool counts -> calibrated flux, one (frames, 3) array per segment."""
    return [segment_flux(s) for s in segments]


def frame_features(flux):
    """(frames, 6): the flux and its first difference (0 at the first frame)."""
    delta = np.zeros_like(flux)
    delta[1:] = flux[1:] - flux[:-1]
    return np.hstack([flux, delta])


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

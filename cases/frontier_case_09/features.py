"""Model inputs: each frame's flux (3 channels), its change from the previous frame and the distance the tool travelled
since the previous frame (the tool samples on a clock, so that distance follows its speed), standardized."""

import numpy as np
import torch

from calibration import segment_flux


def to_flux(segments):
    """Raw tool counts -> calibrated flux, one (frames, 3) array per segment."""
    return [segment_flux(s) for s in segments]


def frame_steps(segment):
    """(frames,) metres travelled since the previous frame; the first frame takes the second's."""
    metres = torch.tensor(segment.odometer) / 1000
    step = metres.diff()
    return torch.cat([step[:1], step]).numpy()


def to_steps(segments):
    return [frame_steps(s) for s in segments]


def frame_features(flux, steps):
    """(frames, 7): the flux, its first difference (0 at the first frame) and the frame step."""
    delta = np.zeros_like(flux)
    delta[1:] = flux[1:] - flux[:-1]
    return np.hstack([flux, delta, np.reshape(steps, (-1, 1)).astype(flux.dtype)])


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

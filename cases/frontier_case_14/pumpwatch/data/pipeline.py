"""From archive recordings to the tensors the model trains and validates on.

Stages, per split: render/load the recordings -> put each on the model's sample clock -> remove
the offset -> cut one window per recording (windows.py) -> log-power frames -> standardize each
frequency bin with the training split's statistics. Static features are computed once; augmentation
happens per batch.
"""

from dataclasses import dataclass

import numpy as np
import torch

from . import synth
from .signal import frame_spectra, remove_offset, to_timebase
from .windows import cut

VAL_SEED_OFFSET = 7919


@dataclass
class Split:
    x: torch.Tensor          # (n, bins, frames)
    y: torch.Tensor          # (n,)
    logger: list
    pump: torch.Tensor


def recordings(cfg, split):
    n = cfg.data.n_train if split == "train" else cfg.data.n_val
    seed = cfg.seed if split == "train" else cfg.seed + VAL_SEED_OFFSET
    return synth.generate(n, seed)


def waveforms(recs, cfg):
    """Each recording on the model's clock, offset removed (full length)."""
    return [remove_offset(to_timebase(rec.wave, rec.rate, cfg.data.rate)) for rec in recs]


def features(recs, cfg, seed=None):
    windows = cut(waveforms(recs, cfg), cfg.data.window, seed)
    return frame_spectra(windows, cfg.data.frame, cfg.data.hop)


class Standardizer:
    def __init__(self, eps=1e-5):
        self.eps = eps
        self.mean = None
        self.std = None

    def fit(self, x):
        self.mean = x.mean(axis=(0, 2), keepdims=True)
        self.std = x.std(axis=(0, 2), keepdims=True) + self.eps
        return self

    def __call__(self, x):
        return (x - self.mean) / self.std

    def state(self):
        return {"mean": self.mean.ravel().tolist(), "std": self.std.ravel().tolist()}


def build_splits(cfg):
    """(train, val, standardizer); the standardizer is fitted on the training split only."""
    train_recs, val_recs = recordings(cfg, "train"), recordings(cfg, "val")
    train_x, val_x = features(train_recs, cfg, seed=cfg.seed), features(val_recs, cfg)
    scaler = Standardizer().fit(train_x)

    def pack(recs, x):
        return Split(torch.from_numpy(scaler(x).astype(np.float32)),
                     torch.tensor([r.label for r in recs]),
                     [r.logger for r in recs],
                     torch.tensor([r.pump for r in recs]))

    return pack(train_recs, train_x), pack(val_recs, val_x), scaler

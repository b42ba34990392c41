"""From archive recordings to the tensors the model trains and validates on.

Stages: read the export (archive.py: counts to m/s^2) -> put each recording on the model's sample
clock, remove the offset and take it to unit RMS (``dsp.unit_rms``) -> split the export and
build the training index (``assemble``) -> cut one window per recording (windows.py) -> log-power
frames -> standardize every frequency bin with the training split's statistics. Static features are
computed once; augmentation happens per batch.
"""

from dataclasses import dataclass

import numpy as np
import torch

from . import archive
from .dsp import frame_spectra, remove_offset, to_timebase, unit_rms
from .windows import cut

SPLIT_SEED = 7919
MIN_SECONDS = 1.0   # shorter captures were interrupted by a logger restart


@dataclass
class Split:
    x: torch.Tensor          # (n, bins, frames)
    y: torch.Tensor          # (n,)


def recordings(cfg):
    """The export (``cfg.data.export``): ``n_train + n_val`` recordings."""
    recs = archive.read(cfg.data.export)
    n = cfg.data.n_train + cfg.data.n_val
    if len(recs) < n:
        raise ValueError(f"the export holds {len(recs)} recordings, the config asks for {n}")
    return recs[:n]


def waveforms(recs, cfg):
    """Each recording on the model's clock, offset removed, at unit RMS (full length)."""
    return [unit_rms(remove_offset(to_timebase(rec.wave, rec.rate, cfg.data.rate))) for rec in recs]


def assemble(recs, waves, cfg):
    """Shuffle the export, assign the splits and build the training index.

    Validation scores every one of its ``n_val`` recordings. A training slot whose recording is
    shorter than ``MIN_SECONDS`` (an interrupted capture) is given to another complete recording of
    the same condition, so an epoch keeps its size and its mix of conditions.
    """
    rng = np.random.default_rng([SPLIT_SEED, cfg.seed])
    order = rng.permutation(len(recs))
    val_idx, train_idx = order[:cfg.data.n_val], order[cfg.data.n_val:]
    labels = np.array([r.label for r in recs])
    complete = np.array([len(w) >= MIN_SECONDS * cfg.data.rate for w in waves])
    index = train_idx.copy()
    for slot, i in enumerate(train_idx):
        if not complete[i]:
            pool = train_idx[complete[train_idx] & (labels[train_idx] == labels[i])]
            index[slot] = rng.choice(pool)
    return index, val_idx


def features(waves, cfg, seed=None):
    windows = cut(waves, cfg.data.window, seed)
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
    recs = recordings(cfg)
    waves = waveforms(recs, cfg)
    train_idx, val_idx = assemble(recs, waves, cfg)
    train_x = features([waves[i] for i in train_idx], cfg, seed=cfg.seed)
    val_x = features([waves[i] for i in val_idx], cfg)
    scaler = Standardizer().fit(train_x)

    def pack(idx, x):
        return Split(torch.from_numpy(scaler(x).astype(np.float32)), torch.tensor([recs[i].label for i in idx]))

    return pack(train_idx, train_x), pack(val_idx, val_x), scaler

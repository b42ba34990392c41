"""Builds the training and validation data: recordings -> static stages -> loaders."""

from dataclasses import dataclass

import torch

from nirgrain.data.loader import Loader
from nirgrain.data.synth import CLASSES, INSTRUMENT_SERIALS, make_recordings
from nirgrain.data.transforms import (Absorbance, BandDropout, BaselineShift, Compose, InstrumentBaseline, Jitter,
                                      Standardize)

VAL_SEED_OFFSET = 1000


@dataclass
class Datasets:
    train_loader: Loader
    val_loader: Loader
    val_x: torch.Tensor
    val_y: torch.Tensor
    val_instrument: torch.Tensor
    static: Compose
    augment: Compose


def static_stages(cfg):
    stages = [Absorbance()] if cfg.data.absorbance else []
    stages.append(Standardize())
    if cfg.data.instrument_baseline:
        stages.append(InstrumentBaseline())
    return Compose(stages)


def augment_stages(cfg):
    stages = []
    if cfg.data.jitter > 0:
        stages.append(Jitter(cfg.data.jitter))
    if cfg.data.baseline_shift > 0:
        stages.append(BaselineShift(cfg.data.baseline_shift))
    if cfg.data.dropout_bands > 0:
        stages.append(BandDropout(cfg.data.dropout_bands))
    return Compose(stages)


def split_seed(cfg, split):
    return cfg.seed if split == "train" else cfg.seed + VAL_SEED_OFFSET


def instrument_ids(serials):
    """Ids 0..k-1 for instrument serial numbers, in the order of the lab's serial table (the baseline
    table is indexed by them)."""
    ids = {s: i for i, s in enumerate(INSTRUMENT_SERIALS)}
    return torch.tensor([ids[s] for s in serials.tolist()])


def raw_split(cfg, split):
    """(reflectance spectra, variety labels, instrument ids) of one split."""
    n = cfg.data.n_train if split == "train" else cfg.data.n_val
    raw, y, serials = make_recordings(n, cfg.data.n_wavelengths, cfg.data.n_instruments, split_seed(cfg, split))
    return raw, y, instrument_ids(serials)


def build_datasets(cfg):
    raw_train, y_train, m_train = raw_split(cfg, "train")
    raw_val, y_val, m_val = raw_split(cfg, "val")
    static = static_stages(cfg).fit(raw_train, m_train)
    x_train, x_val = static(raw_train, groups=m_train), static(raw_val, groups=m_val)
    augment = augment_stages(cfg)
    train_loader = Loader(x_train, y_train, m_train, cfg.data.batch_size, shuffle=True, augment=augment,
                          seed=cfg.seed, drop_last=True)
    val_loader = Loader(x_val, y_val, m_val, cfg.eval.batch_size)
    return Datasets(train_loader, val_loader, x_val, y_val, m_val, static, augment)


def rebuild_split(cfg, static_state, split="val"):
    """A split's features with the static stages a checkpoint was trained with (for evaluate/export)."""
    raw, y, instrument = raw_split(cfg, split)
    static = static_stages(cfg)
    static.load_state_dict(static_state)
    return static(raw, groups=instrument), y, instrument


def class_balance(y):
    counts = torch.bincount(y, minlength=len(CLASSES))
    return {c: int(n) for c, n in zip(CLASSES, counts)}

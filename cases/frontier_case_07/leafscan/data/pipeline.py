"""Builds the training and validation data: scans -> static stages -> loaders."""

from dataclasses import dataclass

import torch

from leafscan.data.loader import Loader
from leafscan.data.synth import CLASSES, make_scans
from leafscan.data.transforms import BandMask, Compose, Jitter, LogReflectance, NormalizeBrightness, Standardize

VAL_SEED_OFFSET = 1000


@dataclass
class Datasets:
    train_loader: Loader
    val_loader: Loader
    val_x: torch.Tensor
    val_y: torch.Tensor
    val_house: torch.Tensor
    static: Compose
    augment: Compose


def static_stages(cfg):
    stages = [LogReflectance(), NormalizeBrightness()] if cfg.data.log_reflectance else []
    return Compose(stages + [Standardize()])


def augment_stages(cfg):
    stages = []
    if cfg.data.jitter > 0:
        stages.append(Jitter(cfg.data.jitter))
    if cfg.data.band_mask > 0:
        stages.append(BandMask(cfg.data.band_mask))
    return Compose(stages)


def split_seed(cfg, split):
    return cfg.seed if split == "train" else cfg.seed + VAL_SEED_OFFSET


def raw_split(cfg, split):
    n = cfg.data.n_train if split == "train" else cfg.data.n_val
    reflectance, y, house = make_scans(n, cfg.data.n_bands, cfg.data.n_houses, split_seed(cfg, split))
    return reflectance, y, house


def build_datasets(cfg):
    raw_train, y_train, h_train = raw_split(cfg, "train")
    raw_val, y_val, h_val = raw_split(cfg, "val")
    static = static_stages(cfg).fit(raw_train)
    x_train, x_val = static(raw_train), static(raw_val)
    augment = augment_stages(cfg)
    train_loader = Loader(x_train, y_train, h_train, cfg.data.batch_size, shuffle=True, augment=augment,
                          seed=cfg.seed, drop_last=True)
    val_loader = Loader(x_val, y_val, h_val, cfg.eval.batch_size)
    return Datasets(train_loader, val_loader, x_val, y_val, h_val, static, augment)


def rebuild_split(cfg, static_state, split="val"):
    """A split's features with the static stages a checkpoint was trained with (for evaluate/export)."""
    raw, y, house = raw_split(cfg, split)
    static = static_stages(cfg)
    static.load_state_dict(static_state)
    return static(raw), y, house


def class_balance(y):
    counts = torch.bincount(y, minlength=len(CLASSES))
    return {c: int(n) for c, n in zip(CLASSES, counts)}

"""Builds the training and validation data: scans -> static stages -> loaders."""

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from leafscan.data.loader import Loader
from leafscan.data.synth import CLASSES, make_scans
from leafscan.data.transforms import BandMask, Compose, Jitter, LogReflectance, Standardize

VAL_SEED_OFFSET = 1000
NOISE_TOLERANCE = 1.1  # a camera this much noisier than the quietest one gets smoothed
SMOOTHING_BANDS = 3


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
    stages = [LogReflectance()] if cfg.data.log_reflectance else []
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
    return smooth_noisy_cameras(reflectance, house), y, house


def band_noise(reflectance, house):
    """Each greenhouse's band-to-band noise: the median over its scans of the spread of the
    differences between neighbouring bands (log reflectance)."""
    roughness = torch.log(reflectance).diff(dim=-1).std(dim=-1)
    return {int(h): roughness[house == h].median().item() for h in house.unique()}


def smooth_noisy_cameras(reflectance, house):
    """Scans from a camera noticeably noisier than the quietest one are smoothed along the band axis
    (a moving average over SMOOTHING_BANDS bands) before the shared stages, so the classifier does
    not fit that camera's noise."""
    noise = band_noise(reflectance, house)
    quietest = min(noise.values())
    smoothed = reflectance.clone()
    for h, level in noise.items():
        if level > NOISE_TOLERANCE * quietest:
            rows = house == h
            smoothed[rows] = moving_average(reflectance[rows], SMOOTHING_BANDS)
    return smoothed


def moving_average(scans, width):
    """Mean over a window of ``width`` neighbouring bands, the edge bands repeated at both ends."""
    padded = F.pad(scans.unsqueeze(1), (width // 2, width // 2), mode="replicate").squeeze(1)
    return padded.unfold(-1, width, 1).mean(dim=-1)


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

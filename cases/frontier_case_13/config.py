"""Experiment configuration: dataclass sections, TOML files that may `inherit` another, and
`--set section.key=value` overrides from the command line."""

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class DataConfig:
    path: str = "data/wafer_maps.npz"
    grid: int = 24                # side of the model's input grid, in cells


@dataclass
class AugmentConfig:
    enabled: bool = True
    dihedral: bool = True         # rotations by 90 degrees and flips (wafers have no orientation)
    die_noise: float = 0.03       # share of dies whose pass/fail is flipped
    warmup_epochs: int = 3        # augmentation probability ramps to 1 over these epochs


@dataclass
class ModelConfig:
    name: str = "wafercnn"
    width: int = 16
    dropout: float = 0.1


@dataclass
class TrainConfig:
    seed: int = 0
    epochs: int = 24
    batch_size: int = 32
    lr: float = 3e-3
    weight_decay: float = 1e-4
    num_workers: int = 1
    label_smoothing: float = 0.0
    log_every: int = 1
    export_dir: str = ""


@dataclass
class Config:
    name: str = "wafer-defects"
    data: DataConfig = field(default_factory=DataConfig)
    augment: AugmentConfig = field(default_factory=AugmentConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)


def _coerce(current, text):
    if isinstance(current, bool):
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"not a boolean: {text!r}")
    if isinstance(current, int):
        return int(text)
    if isinstance(current, float):
        return float(text)
    return text


def _apply(cfg, table, where):
    for key, value in table.items():
        if key == "inherit":
            continue
        if not hasattr(cfg, key):
            raise KeyError(f"unknown config key {where}{key}")
        current = getattr(cfg, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise TypeError(f"{where}{key} is a section")
            _apply(current, value, f"{where}{key}.")
        else:
            setattr(cfg, key, type(current)(value) if not isinstance(current, bool) else bool(value))


def _read(path):
    path = Path(path)
    with open(path, "rb") as fh:
        table = tomllib.load(fh)
    chain = []
    if "inherit" in table:
        chain = _read(path.parent / table["inherit"])
    return chain + [table]


def load_config(path=None, overrides=()):
    """The default Config, updated by the TOML file at `path` (and what it inherits), then by
    `section.key=value` overrides, in that order."""
    cfg = Config()
    if path:
        for table in _read(path):
            _apply(cfg, table, "")
    for item in overrides:
        key, _, text = item.partition("=")
        *sections, leaf = key.strip().split(".")
        node = cfg
        for s in sections:
            node = getattr(node, s)
        if not hasattr(node, leaf):
            raise KeyError(f"unknown config key {key}")
        setattr(node, leaf, _coerce(getattr(node, leaf), text.strip()))
    return cfg


def as_dict(cfg):
    return dataclasses.asdict(cfg)

"""Run configuration: dataclass sections, loaded from TOML, overridden with --set section.key=value."""

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path


@dataclass(frozen=True)
class DataConfig:
    export_dir: str = "data/exports"
    stations: str = "data/stations.csv"
    val_fraction: float = 0.2
    split_seed: int = 7                 # the split is fixed across runs so seeds compare
    batch_size: int = 64


@dataclass(frozen=True)
class AugmentConfig:
    band_noise: float = 0.30            # per-band jitter, in standard deviations of the feature
    level_shift: float = 0.10           # one shift for all bands of a record
    tilt: float = 0.15                  # a random spectral slope across the bands


@dataclass(frozen=True)
class ModelConfig:
    hidden: int = 256
    depth: int = 2
    dropout: float = 0.0


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 0
    epochs: int = 50
    lr: float = 3e-3
    weight_decay: float = 1e-4
    log_every: int = 10                 # epochs between log lines
    out_dir: str = ""                   # where to write the checkpoint and metrics; "" = nowhere


@dataclass(frozen=True)
class Config:
    data: DataConfig = field(default_factory=DataConfig)
    augment: AugmentConfig = field(default_factory=AugmentConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)


def _coerce(current, text):
    if isinstance(current, bool):
        if text.lower() not in ("true", "false", "1", "0"):
            raise ValueError(f"not a boolean: {text!r}")
        return text.lower() in ("true", "1")
    return type(current)(text)


def _apply(section, values, where):
    names = {f.name for f in fields(section)}
    unknown = set(values) - names
    if unknown:
        raise KeyError(f"unknown keys in [{where}]: {sorted(unknown)}")
    return replace(section, **{k: _coerce(getattr(section, k), str(v)) if isinstance(v, str) else v
                               for k, v in values.items()})


def load_config(path=None, overrides=()):
    """The defaults, then the TOML file's sections, then each 'section.key=value' override."""
    cfg = Config()
    if path:
        raw = tomllib.loads(Path(path).read_text())
        for name, values in raw.items():
            if not hasattr(cfg, name):
                raise KeyError(f"unknown section [{name}] in {path}")
            cfg = replace(cfg, **{name: _apply(getattr(cfg, name), values, name)})
    for item in overrides:
        key, _, value = item.partition("=")
        name, _, sub = key.strip().partition(".")
        if not hasattr(cfg, name) or not sub:
            raise KeyError(f"bad override {item!r}: expected section.key=value")
        cfg = replace(cfg, **{name: _apply(getattr(cfg, name), {sub: value.strip()}, name)})
    return cfg


def describe(cfg):
    """One line per section with its non-default values, for the logs of a sweep."""
    default = Config()
    lines = []
    for section in fields(cfg):
        mine, base = getattr(cfg, section.name), getattr(default, section.name)
        changed = {f.name: getattr(mine, f.name) for f in fields(mine) if getattr(mine, f.name) != getattr(base, f.name)}
        if changed:
            lines.append(f"[{section.name}] " + ", ".join(f"{k}={v}" for k, v in sorted(changed.items())))
    return lines or ["(defaults)"]

"""Run configuration: dataclass sections, loaded from TOML, overridden with --set section.key=value."""

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path


@dataclass(frozen=True)
class DataConfig:
    export_dir: str = "data/exports"
    val_fraction: float = 0.2           # share of each bird's sessions held out
    split_seed: int = 7                 # the split is fixed across runs so seeds compare
    row_len: int = 64                   # tokens per training row
    batch_rows: int = 16


@dataclass(frozen=True)
class ModelConfig:
    dim: int = 48
    heads: int = 4
    layers: int = 2
    max_len: int = 64
    dropout: float = 0.0


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 0
    epochs: int = 11
    lr: float = 4e-3
    weight_decay: float = 0.01
    warmup_steps: int = 30
    grad_clip: float = 1.0
    out_dir: str = ""                   # where to write the checkpoint and metrics; "" = nowhere


@dataclass(frozen=True)
class Config:
    data: DataConfig = field(default_factory=DataConfig)
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

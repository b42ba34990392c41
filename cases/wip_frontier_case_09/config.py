"""Run configuration: dataclass sections, loaded from TOML, overridden with --set section.key=value."""

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path


@dataclass(frozen=True)
class DataConfig:
    data_dir: str = "data"
    val_runs: str = "R2603,R2607"       # held-out inspection runs (comma-separated)
    batch_size: int = 24
    min_span: int = 4                   # label check: shortest plausible anomaly span, frames


@dataclass(frozen=True)
class ModelConfig:
    width: int = 32
    kernel: int = 5
    dropout: float = 0.1


@dataclass(frozen=True)
class TrainConfig:
    seed: int = 0
    epochs: int = 24
    lr: float = 8e-3
    weight_decay: float = 0.01
    warmup_steps: int = 30
    grad_clip: float = 1.0
    log_every: int = 4                  # epochs between validation lines
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
    return replace(section, **{k: _coerce(getattr(section, k), v) if isinstance(v, str) else v
                               for k, v in values.items()})


def load_config(path=None, overrides=()):
    raw = {}
    if path:
        raw = tomllib.loads(Path(path).read_text())
    for item in overrides:
        key, _, value = item.partition("=")
        section, _, name = key.partition(".")
        raw.setdefault(section, {})[name] = value
    cfg = Config()
    for f in fields(cfg):
        if f.name in raw:
            cfg = replace(cfg, **{f.name: _apply(getattr(cfg, f.name), raw.pop(f.name), f.name)})
    if raw:
        raise KeyError(f"unknown sections: {sorted(raw)}")
    return cfg

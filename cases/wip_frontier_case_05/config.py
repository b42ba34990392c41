"""Experiment configuration: TOML files with inheritance plus `--set section.key=value` overrides.

A config file may name a parent with `inherit = "base.toml"` (relative to the file); its tables are
merged over the parent's key by key. Every key must exist in the dataclasses below, so a typo in a
config file or an override is an error instead of a silently ignored setting.
"""

import json
import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path


@dataclass
class DataConfig:
    data_dir: str = "data"
    stations: list = field(default_factory=list)
    holdout_weeks: int = 2
    check: bool = True


@dataclass
class FeatureConfig:
    harmonics: int = 2
    weather: bool = True


@dataclass
class ModelConfig:
    name: str = "linear"
    hidden: int = 64
    depth: int = 2
    embed_dim: int = 4


@dataclass
class OptimConfig:
    lr: float = 3e-3
    weight_decay: float = 1e-4
    grad_clip: float = 1.0
    schedule: str = "constant"
    warmup_epochs: int = 0
    min_lr_ratio: float = 0.02


@dataclass
class TrainConfig:
    seed: int = 0
    epochs: int = 10
    batch_size: int = 64
    loss: str = "mse"
    half_life_weeks: float = 0.0
    patience: int = 0
    out_dir: str = ""


@dataclass
class Config:
    name: str = "base"
    data: DataConfig = field(default_factory=DataConfig)
    features: FeatureConfig = field(default_factory=FeatureConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def to_dict(self):
        return asdict(self)

    def dumps(self):
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)


def _read(path):
    path = Path(path)
    with open(path, "rb") as f:
        raw = tomllib.load(f)
    parent = raw.pop("inherit", None)
    if parent is None:
        return raw
    merged = _read(path.parent / parent)
    for key, value in raw.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _parse_value(text, current):
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
    if isinstance(current, list):
        return [t.strip() for t in text.split(",") if t.strip()]
    return text


def _apply(obj, values, where):
    known = {f.name: f for f in fields(obj)}
    for key, value in values.items():
        if key not in known:
            raise KeyError(f"unknown config key {where}{key}")
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise TypeError(f"{where}{key} is a section, got {value!r}")
            _apply(current, value, f"{where}{key}.")
        else:
            if isinstance(current, float) and isinstance(value, int):
                value = float(value)
            setattr(obj, key, value)


def override(cfg, assignments):
    for item in assignments or []:
        if "=" not in item:
            raise ValueError(f"override must be section.key=value, got {item!r}")
        dotted, text = item.split("=", 1)
        *path, key = dotted.strip().split(".")
        obj = cfg
        for part in path:
            obj = getattr(obj, part)
        if key not in {f.name for f in fields(obj)}:
            raise KeyError(f"unknown config key {dotted}")
        setattr(obj, key, _parse_value(text.strip(), getattr(obj, key)))
    return cfg


def load_config(path=None, overrides=None):
    cfg = Config()
    if path is not None:
        _apply(cfg, _read(path), "")
    return override(cfg, overrides)

"""Experiment configuration: dataclasses filled from a TOML file plus `--set section.key=value` overrides."""

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class DataConfig:
    root: str = "data"
    max_events: int = 64          # longest session the model accepts (the export's longest is 46)
    min_events: int = 2


@dataclass
class ModelConfig:
    kind: str = "encoder"         # "encoder" (attention over the events), "gru" or "bag" (bag of events)
    d_model: int = 48
    n_heads: int = 4
    n_layers: int = 1
    d_ff: int = 96
    dropout: float = 0.1
    attention: str = "sdpa"       # "sdpa" (fused kernel) or "eager" (reference implementation)


@dataclass
class TrainConfig:
    seed: int = 0
    epochs: int = 5
    batch_size: int = 32
    eval_batch_size: int = 128
    lr: float = 3e-3
    weight_decay: float = 0.01
    warmup_steps: int = 30
    grad_clip: float = 1.0
    label_smoothing: float = 0.0
    class_weights: str = "none"   # "none" or "balanced"
    log_every: int = 60


@dataclass
class Config:
    name: str = "activity"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)


def _coerce(value: str, current):
    if isinstance(current, bool):
        return value.lower() in ("1", "true", "yes", "on")
    if isinstance(current, int):
        return int(value)
    if isinstance(current, float):
        return float(value)
    return value


def _apply(section, values: dict, where: str):
    names = {f.name for f in dataclasses.fields(section)}
    for key, value in values.items():
        if key not in names:
            raise KeyError(f"unknown config key {where}.{key}")
        setattr(section, key, value)


def load_config(path=None, overrides=()) -> Config:
    """Config from `path` (a TOML file that may `inherit` another one), then `overrides` ("a.b=c")."""
    cfg = Config()
    chain = []
    while path is not None:
        path = Path(path)
        raw = tomllib.loads(path.read_text())
        chain.append(raw)
        parent = raw.pop("inherit", None)
        path = path.parent / parent if parent else None
    for raw in reversed(chain):
        if "name" in raw:
            cfg.name = raw.pop("name")
        for section, values in raw.items():
            if not hasattr(cfg, section):
                raise KeyError(f"unknown config section {section}")
            _apply(getattr(cfg, section), values, section)
    for item in overrides:
        key, _, value = item.partition("=")
        section, _, name = key.strip().partition(".")
        target = getattr(cfg, section, None)
        if target is None or not hasattr(target, name):
            raise KeyError(f"unknown config key {key}")
        setattr(target, name, _coerce(value.strip(), getattr(target, name)))
    return cfg

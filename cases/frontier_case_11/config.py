"""Experiment configuration: TOML files with inheritance plus `--set section.key=value` overrides.

A config file may name a parent with `inherit = "base.toml"` (relative to the file); its tables
are merged over the parent's, key by key. Every key must exist in the dataclasses below, so a
typo in a config or an override is an error instead of a silently ignored setting.
"""

import json
import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path


@dataclass
class DataConfig:
    data_dir: str = "data"
    pattern: str = "*.csv"
    sites: list = field(default_factory=list)
    holdout_days: int = 7
    check: bool = True
    zero_warn_share: float = 0.2


@dataclass
class FeatureConfig:
    log_columns: list = field(default_factory=lambda: ["lag_kwh", "lag24_kwh"])
    cyclic: bool = True


@dataclass
class ModelConfig:
    name: str = "linear"
    hidden: int = 64
    depth: int = 2
    dropout: float = 0.0


@dataclass
class OptimConfig:
    lr: float = 3e-3
    min_lr: float = 3e-4
    weight_decay: float = 1e-4
    grad_clip: float = 1.0
    schedule: str = "constant"
    warmup: int = 0


@dataclass
class TrainConfig:
    seed: int = 0
    epochs: int = 3
    batch_size: int = 32
    log_every: int = 20
    patience: int = 0
    export_dir: str = ""


@dataclass
class ExperimentConfig:
    name: str = "base"
    data: DataConfig = field(default_factory=DataConfig)
    features: FeatureConfig = field(default_factory=FeatureConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def to_dict(self):
        return asdict(self)

    def dumps(self):
        return json.dumps(self.to_dict(), sort_keys=True)


class ConfigError(ValueError):
    """A config file or override names a key that does not exist or has the wrong type."""


def _merge(base, update):
    out = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def read_toml(path, _seen=None):
    """The file's tables merged over its `inherit` chain (cycles are an error)."""
    path = Path(path).resolve()
    seen = set() if _seen is None else _seen
    if path in seen:
        raise ConfigError(f"{path}: inherit cycle")
    seen.add(path)
    with open(path, "rb") as f:
        raw = tomllib.load(f)
    parent = raw.pop("inherit", None)
    if parent is None:
        return raw
    return _merge(read_toml(path.parent / parent, seen), raw)


def _coerce(value, current, where):
    """Parse an override string (or check a TOML value) against the type of the default."""
    if isinstance(current, bool):
        if isinstance(value, str):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ConfigError(f"{where}: expected true/false, got {value!r}")
            return value.lower() in ("true", "1")
        return bool(value)
    if isinstance(current, list):
        if isinstance(value, str):
            items = [v.strip() for v in value.strip("[]").split(",") if v.strip()]
            kind = type(current[0]) if current else str
            return [kind(v.strip("\"'")) for v in items]
        return list(value)
    if isinstance(current, (int, float)) and not isinstance(value, (int, float)) and not isinstance(value, str):
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    try:
        return type(current)(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: cannot read {value!r} as {type(current).__name__}") from None


def _apply(obj, table, where):
    names = {f.name for f in fields(obj)}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(f"{where}: unknown key '{key}' (known: {', '.join(sorted(names))})")
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}.{key}: expected a table")
            _apply(current, value, f"{where}.{key}")
        else:
            setattr(obj, key, _coerce(value, current, f"{where}.{key}"))


def parse_override(text):
    """`optim.lr=0.1` -> {"optim": {"lr": "0.1"}}."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ConfigError(f"override {text!r} is not key=value")
    table = value
    for part in reversed(key.strip().split(".")):
        table = {part: table}
    return table


def load_config(path="configs/base.toml", overrides=()):
    """The ExperimentConfig of `path` with `overrides` (strings `a.b=v` or dicts) applied in order."""
    cfg = ExperimentConfig()
    _apply(cfg, read_toml(path), str(path))
    for item in overrides:
        table = parse_override(item) if isinstance(item, str) else item
        _apply(cfg, table, "--set")
    validate(cfg)
    return cfg


def validate(cfg):
    if cfg.data.holdout_days < 1:
        raise ConfigError("data.holdout_days must be positive")
    if cfg.optim.schedule not in ("constant", "cosine"):
        raise ConfigError(f"optim.schedule: unknown schedule '{cfg.optim.schedule}'")
    if cfg.train.batch_size < 1 or cfg.train.epochs < 1 or cfg.train.log_every < 1:
        raise ConfigError("train.batch_size, train.epochs and train.log_every must be positive")

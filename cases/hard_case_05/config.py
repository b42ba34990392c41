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
    n_words: int = 3000
    sources: list = field(default_factory=lambda: ["syllables"])
    min_len: int = 3
    max_len: int = 16
    val_fraction: float = 0.1
    block_size: int = 3


@dataclass
class ModelConfig:
    name: str = "bigram"
    n_embd: int = 16
    hidden: int = 128
    dropout: float = 0.0


@dataclass
class OptimConfig:
    name: str = "sgd"
    lr: float = 0.1
    momentum: float = 0.0
    betas: list = field(default_factory=lambda: [0.9, 0.999])
    eps: float = 1e-8
    weight_decay: float = 0.0
    schedule: str = "constant"
    warmup: int = 0
    min_ratio: float = 0.1
    grad_clip: float = 0.0


@dataclass
class TrainConfig:
    seed: int = 0
    steps: int = 300
    batch_size: int = 64
    log_every: int = 50
    eval_every: int = 0
    patience: int = 0
    monitors: list = field(default_factory=lambda: ["grad_norm"])
    metrics_file: str = ""
    export_dir: str = ""
    samples: int = 0


@dataclass
class ExperimentConfig:
    name: str = "base"
    data: DataConfig = field(default_factory=DataConfig)
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
    if cfg.optim.name not in ("sgd", "adam", "adamw"):
        raise ConfigError(f"optim.name: unknown optimizer '{cfg.optim.name}'")
    if cfg.optim.schedule not in ("constant", "cosine", "step"):
        raise ConfigError(f"optim.schedule: unknown schedule '{cfg.optim.schedule}'")
    if cfg.train.log_every < 1 or cfg.train.steps < 1:
        raise ConfigError("train.steps and train.log_every must be positive")
    if not 0.0 < cfg.data.val_fraction < 1.0:
        raise ConfigError("data.val_fraction must be in (0, 1)")

"""Experiment configuration: TOML files with single inheritance plus ``--set key=value`` overrides.

A config file may name a parent with ``inherit = "base.toml"`` (relative to the file); its tables
are merged over the parent's, key by key. Overrides use dotted keys (``optim.lr=3e-4``) and are
parsed with the type of the field they replace, so a typo fails loudly instead of being ignored.
"""

import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path


@dataclass
class DataConfig:
    n_wavelengths: int = 64
    n_train: int = 2048
    n_val: int = 1024
    n_instruments: int = 5
    batch_size: int = 64
    jitter: float = 0.05
    baseline_shift: float = 0.0
    dropout_bands: float = 0.0
    absorbance: bool = True
    instrument_baseline: bool = True


@dataclass
class ModelConfig:
    name: str = "mlp"
    hidden: int = 128
    channels: int = 16
    dropout: float = 0.3


@dataclass
class OptimConfig:
    lr: float = 1e-3
    weight_decay: float = 1e-4
    warmup_steps: int = 0
    min_lr_ratio: float = 0.1
    grad_clip: float = 0.0


@dataclass
class TrainerConfig:
    epochs: int = 8
    patience: int = 3
    revalidate: int = 0
    precise_bn_batches: int = 0
    deterministic: bool = True


@dataclass
class EmaConfig:
    decay: float = 0.0
    warmup: int = 0
    start_epoch: int = 1
    evaluate: bool = True


@dataclass
class EvalConfig:
    mode: str = "whole"
    batch_size: int = 256
    ece_bins: int = 10


@dataclass
class OutputConfig:
    dir: str = "runs/base"
    checkpoint: str = "checkpoint.pt"
    metrics: str = "metrics.jsonl"


@dataclass
class Config:
    seed: int = 0
    name: str = "base"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    trainer: TrainerConfig = field(default_factory=TrainerConfig)
    ema: EmaConfig = field(default_factory=EmaConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    output: OutputConfig = field(default_factory=OutputConfig)

    def to_dict(self):
        return asdict(self)


class ConfigError(ValueError):
    pass


def _read_chain(path):
    """The tables of ``path`` merged over those of the files it inherits from."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    raw = tomllib.loads(path.read_text())
    parent = raw.pop("inherit", None)
    merged = _read_chain(path.parent / parent) if parent else {}
    for key, value in raw.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _coerce(kind, value, where):
    if kind is bool or kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return value.lower() in ("1", "true", "yes", "on")
        raise ConfigError(f"{where}: expected a boolean, got {value!r}")
    casts = {"int": int, "float": float, "str": str, int: int, float: float, str: str}
    if kind not in casts:
        raise ConfigError(f"{where}: unsupported field type {kind!r}")
    if kind in (int, "int") and isinstance(value, float) and not value.is_integer():
        raise ConfigError(f"{where}: expected an integer, got {value!r}")
    try:
        return casts[kind](value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: cannot read {value!r} as {getattr(kind, '__name__', kind)}") from exc


def _apply(obj, table, prefix=""):
    known = {f.name: f for f in fields(obj)}
    for key, value in table.items():
        where = f"{prefix}{key}"
        if key not in known:
            raise ConfigError(f"unknown config key '{where}' (known: {', '.join(sorted(known))})")
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"'{where}' is a table, got {value!r}")
            _apply(current, value, prefix=f"{where}.")
        else:
            setattr(obj, key, _coerce(known[key].type, value, where))


def parse_override(text):
    """'optim.lr=3e-4' -> {'optim': {'lr': '3e-4'}}."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override '{text}' is not of the form key=value")
    table = node = {}
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value.strip()
    return table


def load_config(path=None, overrides=()):
    """The configuration in ``path`` (defaults when None) with ``overrides`` applied in order."""
    cfg = Config()
    if path is not None:
        _apply(cfg, _read_chain(path))
    for text in overrides:
        _apply(cfg, parse_override(text))
    validate(cfg)
    return cfg


def validate(cfg):
    if cfg.eval.mode not in ("whole", "batched"):
        raise ConfigError(f"eval.mode must be 'whole' or 'batched', got '{cfg.eval.mode}'")
    if not 0.0 <= cfg.model.dropout < 1.0:
        raise ConfigError(f"model.dropout must be in [0, 1), got {cfg.model.dropout}")
    if not 0.0 <= cfg.data.dropout_bands < 1.0:
        raise ConfigError(f"data.dropout_bands must be in [0, 1), got {cfg.data.dropout_bands}")
    if cfg.data.batch_size < 2:
        raise ConfigError("data.batch_size must be at least 2 (BatchNorm needs two windows per batch)")
    if not 0.0 <= cfg.ema.decay < 1.0:
        raise ConfigError(f"ema.decay must be in [0, 1) (0 disables the average), got {cfg.ema.decay}")
    if cfg.trainer.epochs < 1:
        raise ConfigError("trainer.epochs must be at least 1")

"""Experiment configuration: nested dataclasses filled from TOML files plus ``--set`` overrides.

A config file may name another one with ``inherit = "base.toml"`` (resolved next to it); the
child's tables are merged key by key over the parent's, and ``--set section.key=value`` overrides
are applied last, so a run is fully described by one file and a few command-line edits.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class DataConfig:
    n_train: int = 3000
    n_val: int = 800
    n_channels: int = 6
    window: int = 48
    n_classes: int = 8
    noise: float = 1.4
    subject_spread: float = 0.15
    prototype_seed: int = 1234
    val_seed_offset: int = 100
    batch_size: int = 64
    jitter: float = 0.0
    scale_range: float = 0.0
    balance_temperature: float = 0.0


@dataclass
class ModelConfig:
    name: str = "mlp"
    hidden: int = 128
    depth: int = 2
    channels: int = 32
    kernel_size: int = 5
    dropout: float = 0.0


@dataclass
class OptimConfig:
    name: str = "sgd"
    lr: float = 0.05
    momentum: float = 0.0
    nesterov: bool = False
    weight_decay: float = 0.0
    warmup_steps: int = 0
    min_lr_ratio: float = 1.0
    clip_grad_norm: float = 0.0


@dataclass
class TrainConfig:
    seed: int = 0
    steps: int = 500
    log_every: int = 50
    label_smoothing: float = 0.0
    early_stop_patience: int = 0
    out_dir: str = "runs/default"
    save_checkpoints: bool = True


@dataclass
class ExportConfig:
    enabled: bool = False
    calibrate: bool = False
    path: str = "model.pt"


@dataclass
class Config:
    name: str = "default"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    export: ExportConfig = field(default_factory=ExportConfig)


class ConfigError(ValueError):
    """A config file or override names a section or key that does not exist, or has a bad value."""


def _read_toml(path: Path, seen: tuple[Path, ...] = ()) -> dict:
    path = path.resolve()
    if path in seen:
        raise ConfigError(f"{path}: inherit cycle through {', '.join(p.name for p in seen)}")
    with path.open("rb") as fh:
        raw = tomllib.load(fh)
    parent = raw.pop("inherit", None)
    if parent is None:
        return raw
    base = _read_toml(path.parent / parent, seen + (path,))
    return merge(base, raw)


def merge(base: dict, child: dict) -> dict:
    """Tables merge recursively; anything else in ``child`` replaces ``base``."""
    out = dict(base)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _coerce(text: str, current):
    if isinstance(current, bool):
        lowered = text.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"expected a boolean, got {text!r}")
    if isinstance(current, int):
        return int(text)
    if isinstance(current, float):
        return float(text)
    return text


def parse_override(item: str) -> tuple[list[str], str]:
    key, sep, value = item.partition("=")
    if not sep or not key:
        raise ConfigError(f"override {item!r} is not of the form section.key=value")
    return key.strip().split("."), value


def apply_overrides(raw: dict, overrides: list[str], defaults: Config) -> dict:
    out = merge(raw, {})
    for item in overrides:
        path, value = parse_override(item)
        node, current = out, defaults
        for part in path[:-1]:
            if not dataclasses.is_dataclass(current) or not hasattr(current, part):
                raise ConfigError(f"override {item!r}: no section {part!r}")
            current = getattr(current, part)
            node = node.setdefault(part, {})
        leaf = path[-1]
        if not hasattr(current, leaf):
            raise ConfigError(f"override {item!r}: no key {leaf!r}")
        node[leaf] = _coerce(value, getattr(current, leaf))
    return out


def _build(cls, raw: dict, where: str):
    kwargs = {}
    names = {f.name: f for f in dataclasses.fields(cls)}
    for key, value in raw.items():
        if key not in names:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(names)})")
        default = names[key].default_factory() if names[key].default_factory is not dataclasses.MISSING else None
        if dataclasses.is_dataclass(default):
            if not isinstance(value, dict):
                raise ConfigError(f"{where}.{key}: expected a table")
            kwargs[key] = _build(type(default), value, f"{where}.{key}")
        else:
            current = names[key].default
            if isinstance(current, float) and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            kwargs[key] = value
    return cls(**kwargs)


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> Config:
    raw = _read_toml(Path(path)) if path is not None else {}
    raw = apply_overrides(raw, list(overrides or []), Config())
    return _build(Config, raw, str(path or "defaults"))


def from_dict(raw: dict, where: str = "config") -> Config:
    """The inverse of ``to_dict`` (used to reload a run folder's ``config.json``)."""
    return _build(Config, raw, where)


def to_dict(cfg: Config) -> dict:
    return dataclasses.asdict(cfg)


def describe(cfg: Config) -> str:
    """One line per section, for the top of the training log."""
    lines = []
    for section, values in to_dict(cfg).items():
        if isinstance(values, dict):
            body = ", ".join(f"{k}={v}" for k, v in values.items())
            lines.append(f"  {section}: {body}")
        else:
            lines.append(f"  {section}: {values}")
    return "\n".join(lines)

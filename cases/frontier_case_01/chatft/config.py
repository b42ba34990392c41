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
    n_train: int = 1000
    n_val: int = 60
    max_turns: int = 1
    tasks: str = "count,first,reverse"
    batch_size: int = 32
    padding_side: str = "right"
    train_on: str = "reply"
    block_size: int = 72
    group_by_length: bool = False
    val_seed_offset: int = 1000


@dataclass
class ModelConfig:
    name: str = "gpt"
    d_model: int = 64
    n_layer: int = 2
    n_head: int = 4
    dropout: float = 0.0


@dataclass
class OptimConfig:
    name: str = "adamw"
    lr: float = 3e-3
    beta2: float = 0.95
    weight_decay: float = 0.1
    warmup_steps: int = 0
    min_lr_ratio: float = 1.0
    clip_grad_norm: float = 1.0


@dataclass
class TrainConfig:
    seed: int = 0
    steps: int = 60
    grad_accum: int = 1
    log_every: int = 10
    eval_every: int = 20
    out_dir: str = "runs/default"
    save_checkpoints: bool = True


@dataclass
class SampleConfig:
    prompt: str = "reverse the word tiger"
    max_new_tokens: int = 20
    temperature: float = 0.0
    top_k: int = 0


@dataclass
class Config:
    name: str = "default"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    sample: SampleConfig = field(default_factory=SampleConfig)


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

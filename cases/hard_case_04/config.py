"""Experiment configuration: TOML files with inheritance plus command-line overrides.

A config file may name a parent with ``base = "other.toml"`` (resolved next to it); tables are
merged key by key, so an experiment file only lists what it changes. ``--set section.key=value``
overrides single values after loading, with the value parsed as TOML when it can be.
"""

import tomllib
from dataclasses import dataclass, field, fields, is_dataclass, asdict
from pathlib import Path


@dataclass
class DataConfig:
    n_train: int = 2000
    n_val: int = 500
    min_frames: int = 12
    max_frames: int = 28
    jitter: float = 0.0          # std of additive noise on training frames, in standardized units
    scale_range: float = 0.0     # training frames are scaled by U(1 - r, 1 + r) per recording
    bucket_by_length: bool = False


@dataclass
class ModelConfig:
    kind: str = "conv"
    hidden: int = 32
    dropout: float = 0.1
    kernel: int = 5              # conv only
    layers: int = 2              # conv blocks / recurrent layers
    pool: str = "mean"           # "mean" or "attention"


@dataclass
class OptimConfig:
    name: str = "adam"
    lr: float = 3e-3
    weight_decay: float = 0.0
    warmup_steps: int = 0
    schedule: str = "constant"   # "constant" or "cosine"
    clip_norm: float = 0.0       # 0 disables clipping
    steps: int = 150
    batch_size: int = 32


@dataclass
class EvalConfig:
    batch_size: int = 100
    every: int = 25
    keep_best: bool = False      # restore the weights of the best logged step at the end
    patience: int = 0            # stop after this many evaluations without improvement (0: never)


@dataclass
class ExportConfig:
    path: str = ""


@dataclass
class ExperimentConfig:
    name: str = "baseline"
    seed: int = 0
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    export: ExportConfig = field(default_factory=ExportConfig)

    def to_dict(self):
        return asdict(self)


class ConfigError(ValueError):
    """A config file or override that does not fit the schema; the message names the key."""


def _read_chain(path, seen=()):
    path = Path(path).resolve()
    if path in seen:
        raise ConfigError(f"{path}: 'base' chain loops back to itself")
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    parent = raw.pop("base", None)
    if parent is None:
        return raw
    merged = _read_chain(path.parent / parent, (*seen, path))
    return _merge(merged, raw)


def _merge(into, update):
    out = dict(into)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _coerce(value, kind, where):
    if kind is bool or kind == "bool":
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: expected true/false, got {value!r}")
    if kind is int or kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}")
        return value
    if kind is float or kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if kind is str or kind == "str":
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    raise ConfigError(f"{where}: unsupported field type {kind}")


def _build(cls, raw, prefix=""):
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(prefix + k for k in unknown)}")
    kwargs = {}
    for name, value in raw.items():
        f = known[name]
        default = f.default_factory() if callable(f.default_factory) else None
        if is_dataclass(default):
            if not isinstance(value, dict):
                raise ConfigError(f"{prefix}{name}: expected a table")
            kwargs[name] = _build(type(default), value, f"{prefix}{name}.")
        else:
            kwargs[name] = _coerce(value, f.type, prefix + name)
    return cls(**kwargs)


def _parse_value(text):
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def apply_override(raw, assignment):
    key, sep, text = assignment.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {assignment!r} is not key=value")
    *tables, leaf = key.strip().split(".")
    node = raw
    for t in tables:
        node = node.setdefault(t, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {key}: {t} is not a table")
    node[leaf] = _parse_value(text.strip())
    return raw


def check_ranges(cfg):
    """Values the schema's types allow but training cannot use."""
    problems = []
    if cfg.data.min_frames < 1 or cfg.data.max_frames < cfg.data.min_frames:
        problems.append(f"data.min_frames/max_frames: need 1 <= {cfg.data.min_frames} <= {cfg.data.max_frames}")
    if not 0.0 <= cfg.data.scale_range < 1.0:
        problems.append(f"data.scale_range: {cfg.data.scale_range} is outside [0, 1)")
    if not 0.0 <= cfg.model.dropout < 1.0:
        problems.append(f"model.dropout: {cfg.model.dropout} is outside [0, 1)")
    for key in ("optim.steps", "optim.batch_size", "eval.batch_size", "eval.every"):
        section, name = key.split(".")
        if getattr(getattr(cfg, section), name) < 1:
            problems.append(f"{key}: must be at least 1")
    if cfg.optim.warmup_steps > cfg.optim.steps:
        problems.append(f"optim.warmup_steps ({cfg.optim.warmup_steps}) exceeds optim.steps ({cfg.optim.steps})")
    if problems:
        raise ConfigError("; ".join(problems))
    return cfg


def load_config(path=None, overrides=()):
    """The experiment config from ``path`` (None: the defaults) with ``overrides`` applied in order."""
    raw = _read_chain(path) if path else {}
    for assignment in overrides:
        raw = apply_override(raw, assignment)
    return check_ranges(_build(ExperimentConfig, raw))


def describe(cfg):
    """One line per changed value, for the run header."""
    default = ExperimentConfig().to_dict()
    lines = []
    for section, values in cfg.to_dict().items():
        if isinstance(values, dict):
            for key, value in values.items():
                if default[section][key] != value:
                    lines.append(f"{section}.{key} = {value}")
        elif default[section] != values:
            lines.append(f"{section} = {values}")
    return lines


def _toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def to_toml(cfg):
    """The resolved config as a self-contained TOML file (no ``base``), loadable by load_config."""
    top, tables = [], []
    for section, values in cfg.to_dict().items():
        if isinstance(values, dict):
            tables.append(f"\n[{section}]")
            tables += [f"{key} = {_toml_value(value)}" for key, value in values.items()]
        else:
            top.append(f"{section} = {_toml_value(values)}")
    return "\n".join(top + tables) + "\n"

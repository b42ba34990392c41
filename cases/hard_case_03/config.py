"""Experiment configuration: TOML files with inheritance plus command-line overrides.

A config file may name a parent with ``base = "other.toml"`` (resolved next to it); tables are
merged key by key, so an experiment file only lists what it changes. ``--set section.key=value``
overrides single values after loading; the value is parsed as TOML when it can be.
"""

import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path


@dataclass
class DataConfig:
    n_classes: int = 100
    per_class: int = 10
    noise: float = 0.45
    val_frac: float = 0.2
    split: str = "random"        # "random" or "stratified" (per class)
    augment: bool = False        # random one-pixel shifts of training images
    balanced_batches: bool = False


@dataclass
class ModelConfig:
    encoder: str = "conv"        # "conv" or "mlp"
    dim: int = 64
    width: int = 32


@dataclass
class ClassifierConfig:
    kind: str = "prototype"      # "prototype" (class means) or "nca" (soft nearest neighbours over a bank)
    tau: float = 0.1
    refresh_every: int = 10


@dataclass
class OptimConfig:
    lr: float = 1e-3
    weight_decay: float = 0.0
    steps: int = 60
    batch_size: int = 64
    warmup_steps: int = 0


@dataclass
class EvalConfig:
    every: int = 20
    batch_size: int = 256
    report_confusions: int = 0   # print the N most confused class pairs at the end
    keep_best: bool = False      # restore the encoder of the best logged step at the end


@dataclass
class ExportConfig:
    path: str = ""


@dataclass
class ExperimentConfig:
    name: str = "baseline"
    seed: int = 0
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    classifier: ClassifierConfig = field(default_factory=ClassifierConfig)
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
    return _merge(_read_chain(path.parent / parent, (*seen, path)), raw)


def _merge(into, update):
    out = dict(into)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _coerce(value, kind, where):
    kind = getattr(kind, "__name__", kind)
    if kind == "bool":
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: expected true/false, got {value!r}")
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if kind == "str":
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    raise ConfigError(f"{where}: unsupported field type {kind}")


def build(cls, raw, prefix=""):
    """``cls`` (a config dataclass) from a nested dict, rejecting unknown keys and wrong types."""
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
            kwargs[name] = build(type(default), value, f"{prefix}{name}.")
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
    if not 0.0 < cfg.data.val_frac < 1.0:
        problems.append(f"data.val_frac: {cfg.data.val_frac} is outside (0, 1)")
    if cfg.data.per_class < 2:
        problems.append("data.per_class: need at least 2 images per class (one to train, one to validate)")
    if cfg.classifier.tau <= 0:
        problems.append(f"classifier.tau: must be positive, got {cfg.classifier.tau}")
    for key in ("optim.steps", "optim.batch_size", "eval.every", "eval.batch_size", "classifier.refresh_every"):
        section, name = key.split(".")
        if getattr(getattr(cfg, section), name) < 1:
            problems.append(f"{key}: must be at least 1")
    if problems:
        raise ConfigError("; ".join(problems))
    return cfg


def load_config(path=None, overrides=()):
    """The experiment config from ``path`` (None: the defaults) with ``overrides`` applied in order."""
    raw = _read_chain(path) if path else {}
    for assignment in overrides:
        raw = apply_override(raw, assignment)
    return check_ranges(build(ExperimentConfig, raw))


def describe(cfg):
    """``section.key = value`` for every value that differs from the defaults, for the run header."""
    default = ExperimentConfig().to_dict()
    lines = []
    for section, values in cfg.to_dict().items():
        if isinstance(values, dict):
            lines += [f"{section}.{k} = {v}" for k, v in values.items() if default[section][k] != v]
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

"""Run configuration: TOML files with single inheritance plus ``--set key=value`` overrides.

``inherit = "base.toml"`` (relative to the file) merges the parent's tables under the child's,
key by key. Overrides use dotted keys (``optim.lr=1e-3``) and are parsed with the type of the
field they replace, so a misspelt key fails instead of being ignored.
"""

import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path


@dataclass
class DataConfig:
    train: str = "data/train.jsonl"
    val: str = "data/val.jsonl"
    tokenizer: str = "tokenizer.json"
    template: str = "templates/chat.json"
    cache_dir: str = ""
    overwrite_cache: bool = False
    max_len: int = 128
    min_reply_chars: int = 1


@dataclass
class ModelConfig:
    name: str = "gpt"
    d_model: int = 48
    n_layer: int = 1
    n_head: int = 4
    dropout: float = 0.0


@dataclass
class OptimConfig:
    lr: float = 5e-3
    weight_decay: float = 0.0
    warmup_steps: int = 0
    grad_clip: float = 1.0


@dataclass
class TrainConfig:
    steps: int = 80
    batch_size: int = 8
    log_every: int = 20
    sample_tokens: int = 40
    checkpoint: str = ""


@dataclass
class Config:
    seed: int = 0
    name: str = "base"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)

    def to_dict(self):
        return asdict(self)


class ConfigError(ValueError):
    pass


def _read_chain(path):
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
    if kind in (bool, "bool"):
        if isinstance(value, bool):
            return value
        text = str(value).lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off"):
            return False
        raise ConfigError(f"{where}: expected a boolean, got {value!r}")
    casts = {int: int, float: float, str: str, "int": int, "float": float, "str": str}
    if kind not in casts:
        raise ConfigError(f"{where}: unsupported field type {kind!r}")
    try:
        return casts[kind](value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{where}: cannot read {value!r} as {getattr(kind, '__name__', kind)}") from exc


def apply_table(obj, table, prefix=""):
    known = {f.name: f for f in fields(obj)}
    for key, value in table.items():
        where = f"{prefix}{key}"
        if key not in known:
            raise ConfigError(f"unknown config key '{where}' (known: {', '.join(sorted(known))})")
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"'{where}' is a table, got {value!r}")
            apply_table(current, value, prefix=f"{where}.")
        else:
            setattr(obj, key, _coerce(known[key].type, value, where))


def parse_override(text):
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
    """The configuration in ``path`` (built-in defaults when None) with ``overrides`` applied in order."""
    cfg = Config()
    if path is not None:
        apply_table(cfg, _read_chain(path))
    for text in overrides:
        apply_table(cfg, parse_override(text))
    if cfg.data.max_len < 8:
        raise ConfigError("data.max_len must be at least 8")
    if cfg.model.d_model % cfg.model.n_head:
        raise ConfigError(f"model.d_model ({cfg.model.d_model}) must be divisible by model.n_head ({cfg.model.n_head})")
    if cfg.train.batch_size < 1 or cfg.train.steps < 0:
        raise ConfigError("train.batch_size must be >= 1 and train.steps >= 0")
    return cfg

"""Run configuration: a TOML file (optionally extending another) plus ``--set a.b=value`` overrides."""

import tomllib
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path


@dataclass
class DataConfig:
    export: str = "data"
    n_train: int = 1200
    n_val: int = 600
    rate: int = 1000
    window: int = 512
    frame: int = 64
    hop: int = 32
    batch_size: int = 64
    frame_shift: int = 2
    gain_jitter: float = 0.1


@dataclass
class ModelConfig:
    name: str = "seconv"
    width: int = 32
    blocks: int = 2
    kernel: int = 3
    pool: str = "attention"
    gate_dropout: float = 0.1
    pool_dropout: float = 0.5
    head_dropout: float = 0.1


@dataclass
class OptimConfig:
    lr: float = 2e-3
    weight_decay: float = 1e-4
    label_smoothing: float = 0.1
    warmup_epochs: int = 1
    min_lr_ratio: float = 0.05


@dataclass
class TrainerConfig:
    epochs: int = 16
    patience: int = 0
    save_last: bool = False


@dataclass
class EvalConfig:
    batch_size: int = 200
    select: str = "f1"


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
    eval: EvalConfig = field(default_factory=EvalConfig)
    output: OutputConfig = field(default_factory=OutputConfig)

    def to_dict(self):
        return asdict(self)


class ConfigError(ValueError):
    pass


def read_toml(path):
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    table = tomllib.loads(path.read_text())
    base = table.pop("extends", None)
    merged = read_toml(path.parent / base) if base else {}
    for key, value in table.items():
        if isinstance(value, dict):
            merged[key] = {**merged.get(key, {}), **value}
        else:
            merged[key] = value
    return merged


def _cast(kind, value, key):
    if kind in (bool, "bool"):
        if isinstance(value, str):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ConfigError(f"{key}: not a boolean: {value!r}")
            return value.lower() in ("true", "1")
        return bool(value)
    cast = {"int": int, "float": float, "str": str}.get(kind, kind)
    try:
        if cast is int and isinstance(value, str):
            return int(float(value)) if float(value).is_integer() else int(value)
        return cast(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{key}: cannot read {value!r}") from exc


def merge_into(obj, table, prefix=""):
    names = {f.name: f for f in fields(obj)}
    for key, value in table.items():
        full = prefix + key
        if key not in names:
            raise ConfigError(f"unknown key '{full}'")
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise ConfigError(f"'{full}' is a section")
            merge_into(current, value, full + ".")
        else:
            setattr(obj, key, _cast(names[key].type, value, full))


def override_table(text):
    key, sep, value = text.partition("=")
    if not sep:
        raise ConfigError(f"override '{text}' is not key=value")
    parts = key.strip().split(".")
    table = node = {}
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value.strip()
    return table


def check(cfg):
    if cfg.data.window < cfg.data.frame:
        raise ConfigError("data.window must hold at least one frame")
    if cfg.eval.select not in ("f1", "acc", "loss"):
        raise ConfigError("eval.select must be f1, acc or loss")
    for name in ("gate_dropout", "pool_dropout", "head_dropout"):
        if not 0.0 <= getattr(cfg.model, name) < 1.0:
            raise ConfigError(f"model.{name} must be in [0, 1)")
    if cfg.trainer.epochs < 1:
        raise ConfigError("trainer.epochs must be at least 1")


def load_config(path=None, overrides=()):
    cfg = Config()
    if path is not None:
        merge_into(cfg, read_toml(path))
    for text in overrides:
        merge_into(cfg, override_table(text))
    check(cfg)
    return cfg

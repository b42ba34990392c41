"""Run configuration: dataclasses with defaults, a TOML file on top, and `--set a.b=value` overrides."""

import argparse
import tomllib
from dataclasses import dataclass, field, fields, is_dataclass, replace


@dataclass
class DataConfig:
    train_path: str = "data/tickets_train.jsonl"
    val_path: str = "data/tickets_val.jsonl"
    max_len: int = 64
    min_count: int = 2
    lowercase: bool = True
    recency_half_life_days: float = 12.0


@dataclass
class ModelConfig:
    kind: str = "transformer"
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 128
    dropout: float = 0.1
    pool: str = "mean"


@dataclass
class OptimConfig:
    name: str = "adamw"
    lr: float = 3e-3
    weight_decay: float = 0.1
    betas: tuple = (0.9, 0.98)
    eps: float = 1e-8
    warmup_steps: int = 50
    schedule: str = "cosine"
    min_lr_ratio: float = 0.1
    grad_clip: float = 1.0


@dataclass
class TrainConfig:
    seed: int = 0
    epochs: int = 8
    batch_size: int = 32
    log_every: int = 100
    eval_every: int = 0
    out_dir: str = ""
    patience: int = 0
    metrics_file: str = ""
    label_smoothing: float = 0.0


@dataclass
class Config:
    name: str = "router"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    train: TrainConfig = field(default_factory=TrainConfig)


def _coerce(current, value):
    if isinstance(current, bool):
        if isinstance(value, str):
            return value.lower() in ("1", "true", "yes", "on")
        return bool(value)
    if isinstance(current, int) and not isinstance(current, bool):
        return int(value)
    if isinstance(current, float):
        return float(value)
    if isinstance(current, tuple):
        if isinstance(value, str):
            value = [v for v in value.strip("()[] ").split(",") if v.strip()]
        return tuple(type(c)(v) for c, v in zip(current, value))
    return str(value) if isinstance(value, str) else value


def _merge(obj, table, where=""):
    updates = {}
    names = {f.name for f in fields(obj)}
    for key, value in table.items():
        if key not in names:
            raise KeyError(f"unknown config key {where}{key}")
        current = getattr(obj, key)
        if is_dataclass(current):
            if not isinstance(value, dict):
                raise TypeError(f"{where}{key} is a section")
            updates[key] = _merge(current, value, f"{where}{key}.")
        else:
            updates[key] = _coerce(current, value)
    return replace(obj, **updates)


def parse_override(text):
    if "=" not in text:
        raise ValueError(f"override {text!r} is not key=value")
    key, value = text.split("=", 1)
    table = value
    for part in reversed(key.strip().split(".")):
        table = {part: table}
    return table


def load_config(path=None, overrides=()):
    cfg = Config()
    if path:
        with open(path, "rb") as f:
            cfg = _merge(cfg, tomllib.load(f))
    for text in overrides:
        cfg = _merge(cfg, parse_override(text))
    return cfg


def cli_config(argv=None, description="train the ticket router"):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", default=None)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args, rest = parser.parse_known_args(argv)
    return load_config(args.config, args.set), rest


def to_dict(cfg):
    """The config as plain nested dicts (tuples as lists), for run folders and sweep records."""
    out = {}
    for f in fields(cfg):
        value = getattr(cfg, f.name)
        if is_dataclass(value):
            out[f.name] = to_dict(value)
        elif isinstance(value, tuple):
            out[f.name] = list(value)
        else:
            out[f.name] = value
    return out


def save_config(cfg, path):
    import json

    with open(path, "w") as f:
        json.dump(to_dict(cfg), f, indent=1, sort_keys=True)

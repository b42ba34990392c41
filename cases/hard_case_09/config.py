"""Experiment configuration: nested dataclasses, TOML files and ``--set section.key=value``.

A run's configuration is built in three layers, later ones winning:

1. the dataclass defaults below (``Config()``);
2. a TOML file (``--config configs/x.toml``), which may name a parent with ``inherit = "base.toml"``
   (resolved next to the file) whose values it overrides;
3. command-line overrides, ``--set optim.lr=1e-3`` (repeatable), cast to the field's type.

Unknown sections or keys are errors, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(ValueError):
    """A configuration file or override that does not fit the schema."""


@dataclass
class EnvConfig:
    name: str = "probe"              # a task registered in envs.TASKS
    n_envs: int = 8                  # parallel copies
    max_episode_steps: int = 50      # time limit (episodes cut here are truncated, not terminated)
    vector: str = "sync"             # vector backend, see vector.BACKENDS
    reward_scale: float = 1.0        # multiplies every reward the learner sees


@dataclass
class ModelConfig:
    kind: str = "separate"           # see models.MODELS
    hidden: int = 32
    activation: str = "tanh"


@dataclass
class OptimConfig:
    lr: float = 3e-3
    eps: float = 1e-5
    warmup_updates: int = 0          # linear warmup of the learning rate over this many updates
    decay: str = "constant"          # "constant" or "linear" (to zero at the last update)
    max_grad_norm: float = 0.5


@dataclass
class AlgoConfig:
    n_steps: int = 8                 # rollout length per copy
    gamma: float = 0.99
    estimator: str = "nstep"         # "nstep" or "gae", see advantages.ESTIMATORS
    gae_lambda: float = 0.95
    vf_coef: float = 0.5
    ent_coef: float = 0.01
    normalize_advantages: bool = False


@dataclass
class RunConfig:
    seed: int = 0
    updates: int = 120
    log_every: int = 20
    out_dir: str = ""                # where export writes the checkpoint and summary ("" = nowhere)
    metrics_file: str = ""           # a JSON-lines log of every logged update ("" = none)
    early_stop_return: float = float("inf")
    eval_episodes: int = 0           # greedy evaluation episodes after training (0 = none)


@dataclass
class Config:
    env: EnvConfig = field(default_factory=EnvConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    algo: AlgoConfig = field(default_factory=AlgoConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


SECTIONS = {f.name: f.type for f in dataclasses.fields(Config)}


def _cast(section: str, key: str, value, source: str):
    """`value` converted to the declared type of ``section.key``."""
    owner = getattr(Config(), section)
    kinds = {f.name: f.type for f in dataclasses.fields(owner)}
    if key not in kinds:
        raise ConfigError(f"{source}: unknown key '{section}.{key}' (known: {', '.join(sorted(kinds))})")
    kind = kinds[key]
    if kind in (bool, "bool"):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text not in ("true", "false", "1", "0"):
            raise ConfigError(f"{source}: '{section}.{key}' expects true/false, got {value!r}")
        return text in ("true", "1")
    cast = {"int": int, "float": float, "str": str}.get(getattr(kind, "__name__", kind), str)
    try:
        if cast is int and isinstance(value, float) and not value.is_integer():
            raise ValueError
        return cast(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: '{section}.{key}' expects {cast.__name__}, got {value!r}") from None


def apply_table(cfg: Config, table: dict, source: str) -> Config:
    for section, values in table.items():
        if section not in SECTIONS:
            raise ConfigError(f"{source}: unknown section [{section}] (known: {', '.join(SECTIONS)})")
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        target = getattr(cfg, section)
        for key, value in values.items():
            setattr(target, key, _cast(section, key, value, source))
    return cfg


def read_toml(path: Path, seen=()) -> dict:
    """The file's tables merged over its parent's (``inherit``), parents first."""
    path = Path(path).resolve()
    if path in seen:
        raise ConfigError(f"{path}: inherit cycle")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    parent = data.pop("inherit", None)
    merged = read_toml(path.parent / parent, (*seen, path)) if parent else {}
    for section, values in data.items():
        merged.setdefault(section, {}).update(values)
    return merged


def parse_override(text: str) -> tuple[str, str, str]:
    dotted, sep, value = text.partition("=")
    section, dot, key = dotted.strip().partition(".")
    if not sep or not dot or not key:
        raise ConfigError(f"--set {text!r}: expected section.key=value")
    return section, key, value.strip()


def load_config(path=None, overrides=()) -> Config:
    """Defaults, then the TOML file at `path` (if any), then each ``section.key=value`` override."""
    cfg = Config()
    if path:
        apply_table(cfg, read_toml(Path(path)), str(path))
    for text in overrides:
        section, key, value = parse_override(text)
        apply_table(cfg, {section: {key: value}}, f"--set {text}")
    validate(cfg)
    return cfg


def validate(cfg: Config) -> None:
    if cfg.env.n_envs < 1 or cfg.algo.n_steps < 1:
        raise ConfigError("env.n_envs and algo.n_steps must be positive")
    if not 0.0 <= cfg.algo.gamma <= 1.0:
        raise ConfigError(f"algo.gamma must lie in [0, 1], got {cfg.algo.gamma}")
    if cfg.env.max_episode_steps < 1:
        raise ConfigError("env.max_episode_steps must be at least 1")
    if cfg.optim.decay not in ("constant", "linear"):
        raise ConfigError(f"optim.decay must be 'constant' or 'linear', got {cfg.optim.decay!r}")


def describe(cfg: Config) -> str:
    """One line per section, for the start of a run's log."""
    lines = []
    for section, values in cfg.to_dict().items():
        lines.append(f"{section}: " + ", ".join(f"{k}={v}" for k, v in values.items()))
    return "\n".join(lines)

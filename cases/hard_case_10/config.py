"""Experiment configuration: nested dataclasses, TOML files and ``--set section.key=value``.

Three layers, later ones winning: the dataclass defaults below; a TOML file
(``--config configs/x.toml``), which may name a parent with ``inherit = "base.toml"``
(resolved next to it); command-line overrides ``--set optim.lr=1e-3`` (repeatable), cast to the
field's declared type. Unknown sections or keys are errors.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(ValueError):
    """A configuration file or override that does not fit the schema."""


@dataclass
class ProblemConfig:
    name: str = "poisson"          # see problems.PROBLEMS
    L: float = 1.0                 # domain length [m] (the Poisson problem always uses L = 1)
    T_hot: float = 500.0           # temperature at x = 0 [K]
    T_cold: float = 300.0          # temperature at x = L [K] (slab) or ambient (fin)
    k: float = 50.0                # conductivity [W/(m K)]
    q: float = 0.0                 # volumetric heat generation [W/m^3]
    h: float = 25.0                # fin: convection coefficient [W/(m^2 K)]
    perimeter_over_area: float = 400.0   # fin: P / A_c [1/m]


@dataclass
class ModelConfig:
    kind: str = "mlp"              # see models.MODELS
    hidden: int = 20
    depth: int = 2
    activation: str = "tanh"
    fourier_features: int = 8      # fourier model only
    fourier_sigma: float = 1.0
    init: str = "default"          # "default" (PyTorch's) or "xavier" (Glorot normal, zero biases)


@dataclass
class SamplerConfig:
    kind: str = "grid"             # see sampling.SAMPLERS
    n_points: int = 32
    include_ends: bool = True      # grid and chebyshev: keep x = 0 and x = L among the points
    resample_every: int = 0        # random sampler: draw new points every N steps (0 = never)


@dataclass
class LossConfig:
    w_pde: float = 1.0
    w_bc: float = 1.0
    reduction: str = "mean"        # "mean" or "sum" over the points of each term


@dataclass
class OptimConfig:
    lr: float = 5e-3
    steps: int = 400
    betas: tuple = (0.9, 0.999)
    decay_at: int = 0              # multiply the lr by decay_factor at this step (0 = never)
    decay_factor: float = 0.1
    max_grad_norm: float = 0.0     # clip the gradient's total norm to this (0 = no clipping)
    lbfgs_steps: int = 0           # L-BFGS iterations after Adam (0 = none)


@dataclass
class RunConfig:
    seed: int = 0
    log_every: int = 100
    out_dir: str = ""              # export folder ("" = no export)
    metrics_file: str = ""         # JSON-lines log of logged steps ("" = none)
    target_rel_l2: float = 0.0     # stop early below this relative L2 error (0 = never)
    keep_best: bool = False        # end with the weights of the logged step with the lowest total loss


@dataclass
class Config:
    problem: ProblemConfig = field(default_factory=ProblemConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    loss: LossConfig = field(default_factory=LossConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


SECTIONS = [f.name for f in dataclasses.fields(Config)]


def _cast(section: str, key: str, value, source: str):
    owner = getattr(Config(), section)
    kinds = {f.name: f.type for f in dataclasses.fields(owner)}
    if key not in kinds:
        raise ConfigError(f"{source}: unknown key '{section}.{key}' (known: {', '.join(sorted(kinds))})")
    kind = getattr(kinds[key], "__name__", kinds[key])
    try:
        if kind == "bool":
            text = str(value).strip().lower()
            if text not in ("true", "false", "1", "0"):
                raise ValueError
            return text in ("true", "1")
        if kind == "tuple":
            items = value if isinstance(value, (list, tuple)) else str(value).strip("()[] ").split(",")
            return tuple(float(v) for v in items)
        if kind == "int":
            if isinstance(value, float) and not value.is_integer():
                raise ValueError
            return int(value)
        if kind == "float":
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: '{section}.{key}' expects {kind}, got {value!r}") from None


def apply_table(cfg: Config, table: dict, source: str) -> Config:
    for section, values in table.items():
        if section not in SECTIONS:
            raise ConfigError(f"{source}: unknown section [{section}] (known: {', '.join(SECTIONS)})")
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        for key, value in values.items():
            setattr(getattr(cfg, section), key, _cast(section, key, value, source))
    return cfg


def read_toml(path: Path, seen=()) -> dict:
    """The file's tables merged over its parent's (``inherit``)."""
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


def load_config(path=None, overrides=()) -> Config:
    """Defaults, then the TOML file at `path` (if any), then each ``section.key=value``."""
    cfg = Config()
    if path:
        apply_table(cfg, read_toml(Path(path)), str(path))
    for text in overrides:
        dotted, sep, value = text.partition("=")
        section, dot, key = dotted.strip().partition(".")
        if not sep or not dot:
            raise ConfigError(f"--set {text!r}: expected section.key=value")
        apply_table(cfg, {section: {key: value.strip()}}, f"--set {text}")
    check(cfg)
    return cfg


def check(cfg: Config) -> None:
    p = cfg.problem
    if p.L <= 0 or p.k <= 0:
        raise ConfigError("problem.L and problem.k must be positive")
    if cfg.sampler.n_points < 2:
        raise ConfigError("sampler.n_points must be at least 2")
    if cfg.loss.reduction not in ("mean", "sum"):
        raise ConfigError(f"loss.reduction must be 'mean' or 'sum', got {cfg.loss.reduction!r}")
    if cfg.optim.steps < 0:
        raise ConfigError("optim.steps must be >= 0")
    if p.name in ("fin", "slab") and p.T_hot == p.T_cold:
        raise ConfigError(f"problem '{p.name}': T_hot equals T_cold, so the solution is a constant "
                          "(nothing to learn); give the faces different temperatures")
    if p.name == "fin" and (p.h <= 0 or p.perimeter_over_area <= 0):
        raise ConfigError("problem 'fin' needs positive h and perimeter_over_area")
    if cfg.model.depth < 1 or cfg.model.hidden < 1:
        raise ConfigError("model.depth and model.hidden must be positive")


def describe(cfg: Config) -> str:
    return "\n".join(f"{s}: " + ", ".join(f"{k}={v}" for k, v in vals.items()) for s, vals in cfg.to_dict().items())

"""A2C on small vector environments.

Usage: python train.py [--config configs/x.toml] [--set section.key=value ...] [--seed N]

See config.py for every option and configs/ for the experiments.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

from callbacks import default_callbacks
from config import Config, ConfigError, describe, load_config
from envs import make_task
from evaluate import evaluate, format_eval
from models import build_model, count_parameters
from trainer import Trainer
from vector import from_config


def train(cfg: Config, callbacks=None):
    """Train on cfg; returns (model, logged rows)."""
    torch.manual_seed(cfg.run.seed)
    env = from_config(cfg.env, cfg.run.seed)
    model = build_model(cfg.model, env.obs_dim, env.n_actions)
    expected = make_task(cfg.env.name).expected_values(cfg.algo.gamma)
    if callbacks is None:
        callbacks = default_callbacks(cfg, expected, env.obs_dim)
    trainer = Trainer(cfg, env, model, callbacks)
    trainer.fit()
    history = next((cb.rows for cb in callbacks if hasattr(cb, "rows")), [])
    return model, history


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None, help="a TOML file (see configs/)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--seed", type=int, default=None, help="shorthand for --set run.seed=N")
    parser.add_argument("--evaluate", metavar="RUN_DIR", default=None,
                        help="evaluate an exported run (run.out_dir of an earlier run) instead of training")
    parser.add_argument("--show-config", action="store_true", help="print the resolved config and exit")
    return parser.parse_args(argv)


def main(argv):
    torch.set_num_threads(1)
    args = parse_args(argv)
    overrides = list(args.overrides) + ([f"run.seed={args.seed}"] if args.seed is not None else [])
    try:
        cfg = load_config(args.config, overrides)
    except ConfigError as exc:
        raise SystemExit(f"config error: {exc}")
    if args.show_config:
        print(describe(cfg))
        return
    if args.evaluate:
        from export import load_run

        model, run_cfg = load_run(args.evaluate)
        episodes = cfg.run.eval_episodes or 20
        print(format_eval(evaluate(model, run_cfg.env, episodes, seed=cfg.run.seed + 10_000)))
        return
    print(f"env {cfg.env.name} x{cfg.env.n_envs} | model {cfg.model.kind} | gamma {cfg.algo.gamma} | {cfg.run.updates} updates", flush=True)
    t0 = time.time()
    model, _ = train(cfg)
    if cfg.run.eval_episodes > 0:
        print(format_eval(evaluate(model, cfg.env, cfg.run.eval_episodes)), flush=True)
    print(f"{count_parameters(model)} parameters | done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

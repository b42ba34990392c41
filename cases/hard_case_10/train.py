"""Physics-informed networks for 1D boundary-value problems.

Usage: python train.py [--config configs/x.toml] [--set section.key=value ...] [--seed N]

See config.py for every option and configs/ for the experiments.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

from callbacks import default_callbacks
from checks import check_problem, format_check
from config import Config, ConfigError, describe, load_config
from models import build_model, count_parameters
from problems import build_problem
from trainer import Trainer


def train(cfg: Config, callbacks=None):
    """Train on cfg; returns (model, logged rows)."""
    torch.manual_seed(cfg.run.seed)
    problem = build_problem(cfg.problem)
    model = build_model(cfg.model, problem)
    if callbacks is None:
        callbacks = default_callbacks(cfg, problem)
    Trainer(cfg, problem, model, callbacks).fit()
    history = next((cb.rows for cb in callbacks if hasattr(cb, "rows")), [])
    return model, history


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None, help="a TOML file (see configs/)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--seed", type=int, default=None, help="shorthand for --set run.seed=N")
    parser.add_argument("--check", action="store_true", help="check the problem against its analytic solution and exit")
    parser.add_argument("--show-config", action="store_true", help="print the resolved configuration and exit")
    parser.add_argument("--report", action="store_true", help="print a profile table after training")
    parser.add_argument("--evaluate", metavar="RUN_DIR", default=None, help="report on an exported run and exit")
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
        from metrics import evaluate

        model, problem, _ = load_run(args.evaluate)
        print(problem.summary(), evaluate(model, problem))
        return
    problem = build_problem(cfg.problem)
    if args.check:
        print(format_check(problem, check_problem(problem)))
        return
    print(f"{problem.summary()} | model {cfg.model.kind} {cfg.model.depth}x{cfg.model.hidden} | "
          f"{cfg.sampler.n_points} {cfg.sampler.kind} points | Adam lr {cfg.optim.lr:g}, {cfg.optim.steps} steps", flush=True)
    t0 = time.time()
    model, _ = train(cfg)
    if args.report:
        from report import print_report

        print_report(model, problem)
    print(f"{count_parameters(model)} parameters | done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

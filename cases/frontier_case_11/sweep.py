"""Grid sweep over config overrides; one line per combination, sorted by the held-out MAE over all sites.

    python sweep.py --config configs/fleet.toml --grid optim.lr=1e-3,3e-3 --grid model.hidden=32,64
"""

import argparse
import contextlib
import io
import itertools
import math
import sys

import torch

from config import load_config
from train import run


def parse_grid(items):
    """['a.b=1,2', 'c=x'] -> [('a.b', ['1', '2']), ('c', ['x'])]."""
    grid = []
    for item in items:
        key, sep, values = item.partition("=")
        if not sep:
            raise SystemExit(f"--grid {item!r}: expected key=v1,v2,...")
        grid.append((key, [v for v in values.split(",") if v]))
    return grid


def overall_mae(report):
    rows = sum(m["rows"] for m in report.values())
    return sum(m["mae_kwh"] * m["rows"] for m in report.values()) / rows


def sweep(config, grid, base_overrides=()):
    rows = []
    keys = [k for k, _ in grid]
    for combo in itertools.product(*[vs for _, vs in grid]):
        overrides = [*base_overrides, *(f"{k}={v}" for k, v in zip(keys, combo))]
        cfg = load_config(config, overrides)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                _, _, report = run(cfg)
            final, worst, error = overall_mae(report), max(report, key=lambda n: report[n]["wape"]), ""
        except FloatingPointError as exc:
            final, worst, error = math.inf, "-", str(exc)
        rows.append((final, worst, dict(zip(keys, combo)), error))
    return sorted(rows, key=lambda r: r[0])


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--grid", action="append", default=[])
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    for final, worst, combo, error in sweep(args.config, parse_grid(args.grid), args.overrides):
        settings = " ".join(f"{k}={v}" for k, v in combo.items())
        print(f"{settings:40s} mae {final:6.2f} kWh, worst wape: {worst}" + (f"  ({error})" if error else ""))


if __name__ == "__main__":
    main(sys.argv[1:])

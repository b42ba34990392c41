"""Evaluate an exported run on the held-out week (or another folder of site CSVs).

    python evaluate.py runs/fleet-mlp [--data-dir data] [--site depot-fleet --profile]

--profile prints, for each site asked for, the mean forecast and the mean actual per hour of day.
"""

import argparse
import json
import sys
from pathlib import Path

import torch

from config import load_config
from data import COLUMNS, load_sites, split_holdout
from export import evaluate_sites, forecast
from features import n_features
from losses import per_row_deviance
from metrics import hour_profile
from models import build_model
from normalize import Standardizer, make_pipeline


def load_run(run_dir):
    """(config, model, pipeline) of an export folder."""
    run = Path(run_dir)
    cfg = load_config(Path(__file__).parent / "configs" / "base.toml", [json.loads((run / "config.json").read_text())])
    inputs = json.loads((run / "inputs.json").read_text())
    model = build_model(cfg.model, n_features(cfg.features.cyclic), inputs["scale_kwh"])
    model.load_state_dict(torch.load(run / "model.pt", weights_only=True))
    pipeline = make_pipeline(cfg.features, Standardizer.from_state(inputs["standardizer"]))
    return cfg, model.eval(), pipeline


def print_profile(model, pipeline, site):
    pred = forecast(model, pipeline, site)
    hours = site["x"][:, COLUMNS.index("hour")]
    dev = per_row_deviance(pred, site["y"])
    print(f"{site['name']}: hour | forecast kWh | actual kWh")
    for h, p, a in hour_profile(pred, site["y"], hours):
        print(f"  {h:2d} | {p:7.2f} | {a:7.2f}")
    print(f"  worst hour by deviance: {int(hours[dev.argmax()].item())}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--site", action="append", default=[], help="only these sites (repeatable)")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg, model, pipeline = load_run(args.run_dir)
    sites = load_sites(args.data_dir, "*.csv", tuple(args.site))
    _, holdout = split_holdout(sites, cfg.data.holdout_days)
    report = evaluate_sites(model, pipeline, holdout)
    print(f"{cfg.name}, held-out week:")
    for name, m in report.items():
        print(f"  {name}: mae {m['mae_kwh']:.2f} kWh | wape {m['wape']:.1%} | bias {m['bias_kwh']:.2f} kWh "
              f"| poisson dev {m['poisson_dev']:.3f} | tweedie dev {m['tweedie_dev']:.3f}")
    if args.profile:
        for site in holdout:
            print_profile(model, pipeline, site)


if __name__ == "__main__":
    main(sys.argv[1:])

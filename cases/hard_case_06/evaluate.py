"""Evaluate an exported run on the export (or another folder of building CSVs).

    python evaluate.py runs/mlp-per-building [--data-dir data]
"""

import argparse
import json
import sys
from pathlib import Path

import torch

from config import load_config
from data import load_shards
from export import evaluate_shards
from features import TargetScaler, n_features
from models import build_model
from normalize import build_normalizer, make_pipeline


def load_run(run_dir, shards):
    """(config, model, pipeline, target scaler) of an export folder, rebuilt for `shards`."""
    run = Path(run_dir)
    cfg = load_config(Path(__file__).parent / "configs" / "base.toml", [json.loads((run / "config.json").read_text())])
    model = build_model(cfg.model, n_features(cfg.features.cyclic_hour))
    model.load_state_dict(torch.load(run / "model.pt", weights_only=True))
    scalers = json.loads((run / "scalers.json").read_text())
    target = TargetScaler(torch.zeros(2))
    target.mean, target.std = scalers["target"]["mean"], scalers["target"]["std"]
    pipeline = make_pipeline(cfg.features, build_normalizer(cfg.features, shards))
    return cfg, model.eval(), pipeline, target


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--building", action="append", default=[], help="only these buildings (repeatable)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    shards = load_shards(args.data_dir)
    if args.building:
        unknown = sorted(set(args.building) - {s["name"] for s in shards})
        if unknown:
            raise SystemExit(f"unknown building(s): {', '.join(unknown)}")
        shards = [s for s in shards if s["name"] in args.building]
    cfg, model, pipeline, target = load_run(args.run_dir, shards)
    report = evaluate_shards(model, pipeline, target, shards)
    print(f"{cfg.name}:")
    for name, m in report.items():
        print(f"  {name}: mae {m['mae_kwh']:.2f} kWh | rmse {m['rmse_kwh']:.2f} | cov90 {m['coverage90']:.2f} "
              f"| z std {m['z_std']:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])

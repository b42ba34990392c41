"""Evaluate a finished run: its best checkpoint on a fresh validation draw and on the original one.

    python evaluate.py runs/attnpool-v2 [--seed 7]

Rebuilds the run's config from ``config.json`` in the run folder, so the data, model and
normalization are exactly the ones the run trained with.
"""

import argparse
import json
import sys
from pathlib import Path

import torch

from har.config import from_dict
from har.data import build_splits
from har.data.synth import ACTIVITIES
from har.evaluate import evaluate, per_class_accuracy
from har.models import build_model


def load_run(run_dir):
    run_dir = Path(run_dir)
    cfg = from_dict(json.loads((run_dir / "config.json").read_text()), str(run_dir / "config.json"))
    model = build_model(cfg.model, cfg.data)
    checkpoint = torch.load(run_dir / "best.pt", weights_only=True)
    model.load_state_dict(checkpoint["model"])
    return cfg, model.eval(), checkpoint["step"]


def fresh_validation(cfg, seed):
    """A validation split drawn with another seed but standardized with the run's training statistics."""
    splits = build_splits(cfg.data, seed=cfg.train.seed)
    other = build_splits(cfg.data, seed=seed)
    x_val = splits.standardizer(other.standardizer.inverse(other.x_val))
    return splits, x_val, other.y_val


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--seed", type=int, default=7, help="seed of the fresh validation draw")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg, model, step = load_run(args.run_dir)
    splits, x_fresh, y_fresh = fresh_validation(cfg, args.seed)
    n_classes = cfg.data.n_classes
    print(f"{cfg.name}: best checkpoint from step {step}")
    for label, (x, y) in (("original val", (splits.x_val, splits.y_val)), ("fresh val", (x_fresh, y_fresh))):
        m = evaluate(model, x, y, n_classes)
        print(f"{label:>12} | " + " | ".join(f"{k} {v:.3f}" for k, v in m.items()))
    for name, acc in zip(ACTIVITIES, per_class_accuracy(model, x_fresh, y_fresh, n_classes)):
        print(f"  {name:>12} {acc:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Evaluate an exported run on its own validation split, or on another seed's words.

    python evaluate.py runs/mlp-adamw [--seed N] [--samples K]
"""

import argparse
import json
import sys
from pathlib import Path

import torch

from config import load_config
from dataset import build_datasets
from export import sample_names
from metrics import calibration_error, evaluate
from models import build_model
from tokenizer import CharTokenizer


def load_run(run_dir):
    """(config, tokenizer, model) of an export folder; the config is re-validated on load."""
    run = Path(run_dir)
    raw = json.loads((run / "config.json").read_text())
    cfg = load_config(Path(__file__).parent / "configs" / "base.toml", [raw])
    tokenizer = CharTokenizer.load(run / "tokenizer.json")
    model = build_model(cfg.model, tokenizer.vocab_size, cfg.data.block_size)
    model.load_state_dict(torch.load(run / "model.pt", weights_only=True))
    return cfg, tokenizer, model.eval()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--seed", type=int, default=None, help="evaluate on the words of another seed")
    parser.add_argument("--samples", type=int, default=5)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    cfg, tokenizer, model = load_run(args.run_dir)
    seed = cfg.train.seed if args.seed is None else args.seed
    x_val, y_val = build_datasets(cfg.data, tokenizer, seed=seed)["val"]
    scores = evaluate(model, x_val, y_val)
    print(f"{cfg.name} on seed {seed}: " + " | ".join(f"{k} {v:.4f}" for k, v in scores.items())
          + f" | ece {calibration_error(model, x_val, y_val):.4f}")
    for name in sample_names(model, tokenizer, cfg.data.block_size, args.samples, seed=seed):
        print(" ", name)


if __name__ == "__main__":
    main(sys.argv[1:])

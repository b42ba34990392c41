"""Train a config and save what the hub needs: the weights, the event vocabulary and the config.

    python export_model.py OUT.pt [--config configs/home.toml] [--set section.key=value ...]
"""

import argparse
import dataclasses

import torch

from config import load_config
from data import ACTIVITIES
from train import run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--config", default="configs/home.toml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    cfg = load_config(args.config, args.set)
    result = run(cfg, verbose=False)
    torch.save({"state_dict": result["model"].state_dict(), "events": result["vocab"].itos,
                "activities": list(ACTIVITIES), "config": dataclasses.asdict(cfg)}, args.out)
    print(f"saved {args.out}: accuracy {result['report']['accuracy']:.3f}")


if __name__ == "__main__":
    main()

"""Score a saved checkpoint on the validation split: python evaluate.py runs/plant/checkpoint.pt"""

import argparse

import torch

from pumpwatch.config import Config, merge_into
from pumpwatch.data import CLASSES, build_splits
from pumpwatch.engine.trainer import seed_everything
from pumpwatch.metrics import summarize
from pumpwatch.models import build_model
from pumpwatch.report import format_confusion, format_per_class


def load(path):
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    cfg = Config()
    merge_into(cfg, ckpt["config"])
    return ckpt, cfg


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("checkpoint")
    ap.add_argument("--confusion", action="store_true", help="also print the confusion matrix")
    args = ap.parse_args(argv)
    ckpt, cfg = load(args.checkpoint)
    seed_everything(cfg.seed)
    _, val, _ = build_splits(cfg)
    model = build_model(cfg, val.x.shape[1], len(CLASSES))
    model.load_state_dict(ckpt["model"])
    model.eval()
    with torch.no_grad():
        out = summarize(model(val.x), val.y, len(CLASSES))
    print(f"{args.checkpoint}: val acc {out['acc']:.3f} f1 {out['f1']:.3f}")
    print(format_per_class(out["confusion"], CLASSES))
    if args.confusion:
        print(format_confusion(out["confusion"], CLASSES))


if __name__ == "__main__":
    main()

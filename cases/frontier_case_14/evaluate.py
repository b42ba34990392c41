"""Score a saved checkpoint on the validation split: python evaluate.py runs/plant/checkpoint.pt"""

import argparse

import torch

from pumpwatch.config import Config, merge_into
from pumpwatch.data import CLASSES, build_splits
from pumpwatch.engine.trainer import seed_everything
from pumpwatch.metrics import summarize
from pumpwatch.models import build_model


def load(path):
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    cfg = Config()
    merge_into(cfg, ckpt["config"])
    return ckpt, cfg


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("checkpoint")
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
    print("  recall: " + " ".join(f"{c} {r:.3f}" for c, r in zip(CLASSES, out["recall"])))
    by_logger = {}
    for name in sorted(set(val.logger)):
        rows = torch.tensor([lg == name for lg in val.logger])
        with torch.no_grad():
            by_logger[name] = summarize(model(val.x[rows]), val.y[rows], len(CLASSES))["acc"]
    print("  acc by logger: " + " ".join(f"{k} {v:.3f}" for k, v in by_logger.items()))


if __name__ == "__main__":
    main()

"""Evaluate an exported model on the validation lots: per-class recall and the confusion matrix.

    python evaluate.py --config configs/cnn.toml --model runs/cnn/model.pt
"""

import argparse

import torch

from config import load_config
from metrics import format_recalls, summarize
from models import build_model
from preprocess import Standardizer, prepare
from wafers import load_export


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/cnn.toml")
    parser.add_argument("--model", required=True)
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.set)
    train, val, classes = load_export(cfg.data.path)
    scale = Standardizer(prepare(train, cfg.data.grid))
    x = torch.from_numpy(scale(prepare(val, cfg.data.grid))).unsqueeze(1)
    model = build_model(cfg.model, len(classes), side=x.shape[-1])
    model.load_state_dict(torch.load(args.model))
    model.eval()
    with torch.no_grad():
        s = summarize(model(x), torch.as_tensor(val.labels), len(classes))
    print(f"val loss {s['loss']:.3f} acc {s['acc']:.3f}")
    print("recall  " + format_recalls(classes, s["recall"]))
    width = max(len(c) for c in classes)
    print(" " * (width + 2) + " ".join(f"{c[:6]:>6}" for c in classes))
    for c, row in zip(classes, s["confusion"]):
        print(f"{c:>{width}}  " + " ".join(f"{v:6d}" for v in row))


if __name__ == "__main__":
    main()

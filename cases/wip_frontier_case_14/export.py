"""Export a checkpoint for the edge boxes as TorchScript: python export.py runs/plant/checkpoint.pt out.ts"""

import argparse

import torch

from evaluate import load
from pumpwatch.data import CLASSES
from pumpwatch.models import build_model


class WithScaler(torch.nn.Module):
    def __init__(self, model, mean, std):
        super().__init__()
        self.model = model
        self.register_buffer("mean", torch.tensor(mean).view(1, -1, 1))
        self.register_buffer("std", torch.tensor(std).view(1, -1, 1))

    def forward(self, frames):
        return self.model((frames - self.mean) / self.std)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    args = ap.parse_args(argv)
    ckpt, cfg = load(args.checkpoint)
    n_bins = len(ckpt["scaler"]["mean"])
    model = build_model(cfg, n_bins, len(CLASSES))
    model.load_state_dict(ckpt["model"])
    wrapped = WithScaler(model, ckpt["scaler"]["mean"], ckpt["scaler"]["std"]).eval()
    scripted = torch.jit.script(wrapped)
    scripted.save(args.out)
    print(f"exported {args.out} ({n_bins} channels in, {len(CLASSES)} classes out)")


if __name__ == "__main__":
    main()

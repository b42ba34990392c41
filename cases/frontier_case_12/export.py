"""Export a checkpoint for the lab's intake service: a TorchScript module that takes raw reflectance
spectra and instrument ids (the static feature stages are folded in) and returns class probabilities.

    python export.py runs/experiment/checkpoint.pt [--out runs/experiment/model.ts]
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn as nn

from evaluate import load_checkpoint
from nirgrain.data.pipeline import raw_split
from nirgrain.data.transforms import Absorbance
from nirgrain.engine.loops import predict


class ServingModule(nn.Module):
    """Raw spectra -> probabilities: absorbance, standardization, instrument baseline, classifier, softmax."""

    def __init__(self, model, mean, std, offsets, absorbance):
        super().__init__()
        self.model = model
        self.register_buffer("offsets", offsets.clone())
        self.register_buffer("mean", mean.clone())
        self.register_buffer("std", std.clone())
        self.absorbance = absorbance

    def forward(self, power, instrument):
        return torch.softmax(self.model(serving_features(self, power, instrument)), dim=-1)


def export(path, out, n_check=256):
    model, cfg, ckpt = load_checkpoint(path)
    static = ckpt["static"]
    prefix = "1." if cfg.data.absorbance else "0."
    offsets = static.get(("2." if cfg.data.absorbance else "1.") + "offsets")
    if offsets is None:
        offsets = torch.zeros(1, static[prefix + "mean"].shape[0])
    serving = ServingModule(model, static[prefix + "mean"], static[prefix + "std"], offsets, cfg.data.absorbance).eval()
    raw, y, instrument = raw_split(cfg, "val")
    raw, instrument = raw[:n_check], instrument[:n_check] if offsets.shape[0] > 1 else torch.zeros(n_check, dtype=torch.long)
    traced = torch.jit.trace(serving, (raw, instrument))
    with torch.no_grad():
        reference = torch.softmax(predict(model, serving_features(serving, raw, instrument)), dim=-1)
        gap = (traced(raw, instrument) - reference).abs().max().item()
    if gap > 1e-5:
        raise SystemExit(f"exported module disagrees with the checkpoint by {gap:.2e}")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    traced.save(out)
    return gap


def serving_features(serving, power, instrument):
    x = Absorbance()(power) if serving.absorbance else power
    return (x - serving.mean) / serving.std - serving.offsets[instrument]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    out = args.out or str(Path(args.checkpoint).with_name("model.ts"))
    gap = export(args.checkpoint, out)
    print(f"exported {out} (max |p - p_checkpoint| {gap:.1e} on 256 validation windows)")


if __name__ == "__main__":
    main(sys.argv[1:])

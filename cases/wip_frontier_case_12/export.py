"""Export a checkpoint for the monitoring service: a TorchScript module that takes raw power
spectra (the static feature stages are folded in) and returns class probabilities.

    python export.py runs/experiment/checkpoint.pt [--out runs/experiment/model.ts]
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn as nn

from evaluate import load_checkpoint
from nirgrain.data.pipeline import raw_split
from nirgrain.engine.loops import predict


class ServingModule(nn.Module):
    """Raw power spectra -> probabilities: log power, standardization, classifier, softmax."""

    def __init__(self, model, mean, std, absorbance):
        super().__init__()
        self.model = model
        self.register_buffer("mean", mean.clone())
        self.register_buffer("std", std.clone())
        self.absorbance = absorbance

    def forward(self, power):
        x = -torch.log10(power.clamp_min(1e-6)) if self.absorbance else power
        logits = self.model((x - self.mean) / self.std)
        return torch.softmax(logits, dim=-1)


def export(path, out, n_check=256):
    model, cfg, ckpt = load_checkpoint(path)
    static = ckpt["static"]
    prefix = "1." if cfg.data.absorbance else "0."
    serving = ServingModule(model, static[prefix + "mean"], static[prefix + "std"], cfg.data.absorbance).eval()
    raw, y, _ = raw_split(cfg, "val")
    raw = raw[:n_check]
    traced = torch.jit.trace(serving, raw)
    with torch.no_grad():
        reference = torch.softmax(predict(model, serving_features(serving, raw)), dim=-1)
        gap = (traced(raw) - reference).abs().max().item()
    if gap > 1e-5:
        raise SystemExit(f"exported module disagrees with the checkpoint by {gap:.2e}")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    traced.save(out)
    return gap


def serving_features(serving, power):
    x = -torch.log10(power.clamp_min(1e-6)) if serving.absorbance else power
    return (x - serving.mean) / serving.std


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

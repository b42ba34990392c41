"""Export a checkpoint for the scanning station: a TorchScript module that takes raw reflectance
spectra (the static feature stages are folded in) and returns class probabilities.

    python export.py runs/houses/checkpoint.pt [--out runs/houses/model.ts]
"""

import argparse
import sys
from pathlib import Path

import torch
import torch.nn as nn

from evaluate import load_checkpoint
from leafscan.data.pipeline import raw_split, static_stages
from leafscan.data.transforms import NormalizeBrightness, Standardize
from leafscan.engine.loops import predict


class ServingModule(nn.Module):
    """Raw reflectance spectra -> probabilities: the static feature stages, classifier, softmax."""

    def __init__(self, model, mean, std, log_reflectance, normalize_brightness):
        super().__init__()
        self.model = model
        self.register_buffer("mean", mean.clone())
        self.register_buffer("std", std.clone())
        self.log_reflectance = log_reflectance
        self.normalize_brightness = normalize_brightness

    def forward(self, reflectance):
        return torch.softmax(self.model(serving_features(self, reflectance)), dim=-1)


def export(path, out, n_check=256):
    model, cfg, ckpt = load_checkpoint(path)
    static = ckpt["static"]
    stages = static_stages(cfg).stages
    prefix = f"{next(i for i, stage in enumerate(stages) if isinstance(stage, Standardize))}."
    brightness = any(isinstance(stage, NormalizeBrightness) for stage in stages)
    serving = ServingModule(model, static[prefix + "mean"], static[prefix + "std"], cfg.data.log_reflectance,
                            brightness).eval()
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


def serving_features(serving, reflectance):
    x = 2.0 * torch.log(reflectance.clamp_min(1e-6)) if serving.log_reflectance else reflectance
    if serving.normalize_brightness:
        x = x - x.mean(dim=-1, keepdim=True)
    return (x - serving.mean) / serving.std


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    out = args.out or str(Path(args.checkpoint).with_name("model.ts"))
    gap = export(args.checkpoint, out)
    print(f"exported {out} (max |p - p_checkpoint| {gap:.1e} on 256 validation scans)")


if __name__ == "__main__":
    main(sys.argv[1:])

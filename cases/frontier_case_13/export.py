"""Export a trained classifier for the inspection station: a TorchScript file plus the metadata the
station needs to build the same inputs (class names, grid, standardization).

    python export.py --config configs/cnn.toml --model runs/cnn/model.pt --out station/
"""

import argparse
import json
from pathlib import Path

import torch

from calibration import TemperatureScaled, fit_temperature
from config import as_dict, load_config
from models import build_model
from preprocess import Standardizer, prepare
from wafers import load_export


def build_metadata(cfg, classes, scale, temperature):
    return {"classes": classes, "grid": cfg.data.grid, "mean": scale.mean, "std": scale.std,
            "temperature": temperature, "config": as_dict(cfg)}


def export(cfg, state_path, out_dir, calibrate=True):
    train, val, classes = load_export(cfg.data.path)
    scale = Standardizer(prepare(train, cfg.data.grid))
    val_x = torch.from_numpy(scale(prepare(val, cfg.data.grid))).unsqueeze(1)
    model = build_model(cfg.model, len(classes), side=val_x.shape[-1])
    model.load_state_dict(torch.load(state_path))
    model.eval()
    temperature = 1.0
    if calibrate:
        with torch.no_grad():
            logits = model(val_x)
        temperature = fit_temperature(logits, torch.as_tensor(val.labels))
    wrapped = TemperatureScaled(model, temperature).eval()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    traced = torch.jit.trace(wrapped, val_x[:2])
    traced.save(str(out / "classifier.pt"))
    meta = build_metadata(cfg, classes, scale, temperature)
    (out / "metadata.json").write_text(json.dumps(meta, indent=1))
    return out / "classifier.pt", meta


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/cnn.toml")
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--no-calibration", action="store_true")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args(argv)
    path, meta = export(load_config(args.config, args.set), args.model, args.out, not args.no_calibration)
    print(f"wrote {path} (temperature {meta['temperature']:.3f}, grid {meta['grid']})")


if __name__ == "__main__":
    main()

"""Export a trained PickNet for the alert system: flat float32 arrays, the input statistics, the class
names and a fingerprint the alert system checks before loading.

    python export.py runs/s0/picknet.pt --out alerting/picknet.npz
"""

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import torch

from catalog import load_exports
from config import load_config
from dataset import RecordDataset
from evaluate import load_model
from response import StationResponse


def fingerprint(arrays):
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode())
        h.update(np.ascontiguousarray(arrays[key]).tobytes())
    return h.hexdigest()[:16]


def flat_arrays(model, mean, std):
    arrays = {}
    linear = [m for m in model.body if isinstance(m, torch.nn.Linear)] + [model.head]
    for i, layer in enumerate(linear):
        arrays[f"w{i}"] = layer.weight.detach().numpy().astype(np.float32)
        arrays[f"b{i}"] = layer.bias.detach().numpy().astype(np.float32)
    arrays["input_mean"] = np.asarray(mean, dtype=np.float32)
    arrays["input_std"] = np.asarray(std, dtype=np.float32)
    return arrays


def numpy_forward(arrays, x):
    """The alert system's own forward pass (GELU by tanh approximation) on un-standardized features."""
    h = (x - arrays["input_mean"]) / np.maximum(arrays["input_std"], 1e-6)
    n = sum(1 for k in arrays if k.startswith("w"))
    for i in range(n):
        h = h @ arrays[f"w{i}"].T + arrays[f"b{i}"]
        if i < n - 1:
            h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
    return h


def self_test(model, arrays, mean, std, n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, len(mean))) * std + mean).astype(np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy((x - mean) / np.maximum(std, 1e-6))).numpy()
    got = numpy_forward(arrays, x)
    return float((ref.argmax(1) == got.argmax(1)).mean()), float(np.abs(ref - got).max())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--out", default="alerting/picknet.npz")
    parser.add_argument("--config", default="configs/ridge26.toml")
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    table = load_exports(cfg.data.export_dir)
    ds = RecordDataset(table, StationResponse(table, cfg.data.stations))
    model = load_model(args.checkpoint, ds.x.shape[1], table.classes, cfg)
    arrays = flat_arrays(model, ds.mean, ds.std)
    agree, err = self_test(model, arrays, ds.mean, ds.std)
    if agree < 0.98:
        raise SystemExit(f"numpy forward disagrees with the model on {1 - agree:.1%} of the test inputs")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)
    meta = {"classes": list(model.classes), "fingerprint": fingerprint(arrays), "max_logit_error": err}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {out} ({meta['fingerprint']}); self-test agreement {agree:.3f}, max logit error {err:.2e}")


if __name__ == "__main__":
    main()

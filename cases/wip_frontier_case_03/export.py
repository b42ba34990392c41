"""Export a trained checkpoint for the farm gateways: flat float32 arrays, the input scaling, the state
names, and a fingerprint the gateway checks before loading.

    python export.py runs/s0/herdnet.npz --out gateway/herdnet.npz
"""

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import torch

from config import load_config
from data import load_exports, split_by_cow
from evaluate import load_checkpoint
from dataset import Scaler


def fingerprint(arrays):
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode())
        h.update(np.ascontiguousarray(arrays[key]).tobytes())
    return h.hexdigest()[:16]


def gateway_arrays(model, scaler):
    arrays = {}
    linear = [m for m in model.body if isinstance(m, torch.nn.Linear)] + [model.head]
    for i, layer in enumerate(linear):
        arrays[f"w{i}"] = layer.weight.detach().numpy().astype(np.float32)
        arrays[f"b{i}"] = layer.bias.detach().numpy().astype(np.float32)
    arrays["input_center"] = scaler.center.astype(np.float32)
    arrays["input_spread"] = scaler.spread.astype(np.float32)
    return arrays


def gateway_forward(arrays, x):
    """The gateway's own forward pass (numpy, GELU by tanh approximation), for the self-test."""
    h = (x - arrays["input_center"]) / arrays["input_spread"]
    n = sum(1 for k in arrays if k.startswith("w"))
    for i in range(n):
        h = h @ arrays[f"w{i}"].T + arrays[f"b{i}"]
        if i < n - 1:
            h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
    return h


def self_test(model, arrays, scaler, n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, len(scaler.center))) * scaler.spread + scaler.center).astype(np.float32)
    with torch.no_grad():
        ref = model(torch.from_numpy(scaler(x))).numpy()
    got = gateway_forward(arrays, x)
    agree = float((ref.argmax(1) == got.argmax(1)).mean())
    return agree, float(np.abs(ref - got).max())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--out", default="gateway/herdnet.npz")
    parser.add_argument("--config", default="configs/herd26.toml")
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    model = load_checkpoint(args.checkpoint, cfg)
    train_t, _ = split_by_cow(load_exports(cfg.data.export_dir), cfg.data.val_fraction, cfg.data.split_seed)
    scaler = Scaler.fit_table(train_t)
    arrays = gateway_arrays(model, scaler)
    agree, err = self_test(model, arrays, scaler)
    if agree < 0.98:
        raise SystemExit(f"gateway forward disagrees with the model on {1 - agree:.1%} of the test inputs")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)
    meta = {"states": list(model.classes), "fingerprint": fingerprint(arrays), "max_logit_error": err}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {out} ({meta['fingerprint']}); self-test agreement {agree:.3f}, max logit error {err:.2e}")


if __name__ == "__main__":
    main()

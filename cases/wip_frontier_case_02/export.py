"""Export a trained checkpoint for the herd app: flat float32 layers (batch norm folded into the preceding
linear layer), the input statistics, the state names, and a fingerprint the app checks before loading.

    python export.py runs/s0/collarnet_2026.npz --out app/collarnet.npz
"""

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from config import load_config
from data import load_exports, split_by_cow
from dataset import Standardizer, model_inputs
from evaluate import load_trained


def fingerprint(arrays):
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode())
        h.update(np.ascontiguousarray(arrays[key]).tobytes())
    return h.hexdigest()[:16]


def fold(linear, norm=None):
    """The weight and bias of `linear` followed by `norm` in eval mode, as one affine map."""
    w = linear.weight.detach().double().numpy()
    b = linear.bias.detach().double().numpy()
    if norm is not None:
        scale = norm.weight.detach().double().numpy() / np.sqrt(norm.running_var.double().numpy() + norm.eps)
        w = w * scale[:, None]
        b = (b - norm.running_mean.double().numpy()) * scale + norm.bias.detach().double().numpy()
    return w.astype(np.float32), b.astype(np.float32)


def app_arrays(model, mean, std):
    arrays, i = {}, 0
    modules = list(model.body)
    for k, m in enumerate(modules):
        if isinstance(m, nn.Linear):
            norm = modules[k + 1] if k + 1 < len(modules) and isinstance(modules[k + 1], nn.BatchNorm1d) else None
            arrays[f"w{i}"], arrays[f"b{i}"] = fold(m, norm)
            i += 1
    arrays[f"w{i}"], arrays[f"b{i}"] = fold(model.head)
    arrays["input_mean"] = np.asarray(mean, dtype=np.float32)
    arrays["input_std"] = np.asarray(std, dtype=np.float32)
    return arrays


def app_forward(arrays, x):
    """The app's own forward pass (numpy, ReLU), for the self-test."""
    h = (x - arrays["input_mean"]) / np.maximum(arrays["input_std"], 1e-6)
    n = sum(1 for k in arrays if k.startswith("w"))
    for i in range(n):
        h = h @ arrays[f"w{i}"].T + arrays[f"b{i}"]
        if i < n - 1:
            h = np.maximum(h, 0.0)
    return h


def self_test(model, arrays, mean, std, n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(n, len(mean))) * std + mean).astype(np.float32)
    model.eval()
    with torch.no_grad():
        ref = model(torch.from_numpy((x - mean) / np.maximum(std, 1e-6))).numpy()
    got = app_forward(arrays, x)
    agree = float((ref.argmax(1) == got.argmax(1)).mean())
    return agree, float(np.abs(ref - got).max())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--out", default="app/collarnet.npz")
    parser.add_argument("--config", default="configs/herd26.toml")
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    model = load_trained(args.checkpoint, cfg)
    train_t, _ = split_by_cow(load_exports(cfg.data.export_dir), cfg.data.val_fraction, cfg.data.split_seed)
    standardizer = Standardizer.fit(model_inputs(train_t)[0])
    arrays = app_arrays(model, standardizer.mean, standardizer.std)
    agree, err = self_test(model, arrays, standardizer.mean, standardizer.std)
    if agree < 0.98:
        raise SystemExit(f"app forward disagrees with the model on {1 - agree:.1%} of the test inputs")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)
    meta = {"states": list(model.classes), "fingerprint": fingerprint(arrays), "max_logit_error": err}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {out} ({meta['fingerprint']}); self-test agreement {agree:.3f}, max logit error {err:.2e}")


if __name__ == "__main__":
    main()

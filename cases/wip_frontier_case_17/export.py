"""Export a fine-tuned checkpoint for the site gateways: flat float32 arrays, the input statistics, the
condition names, and a fingerprint the gateway checks before loading.

    python export.py runs/s0/wheelnet_2026.npz --out gateway/wheelnet.npz
"""

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import torch

from config import load_config
from evaluate import load_finetuned
from models import load_pretrained


def fingerprint(arrays):
    h = hashlib.sha256()
    for key in sorted(arrays):
        h.update(key.encode())
        h.update(np.ascontiguousarray(arrays[key]).tobytes())
    return h.hexdigest()[:16]


def gateway_arrays(model, mean, std):
    embed = model.backbone.embed
    arrays = {"w0": torch.cat([embed.w_read, embed.w_delta], dim=1).detach().numpy().astype(np.float32),
              "b0": embed.bias.detach().numpy().astype(np.float32)}
    linear = [m for m in model.backbone.net if isinstance(m, torch.nn.Linear)] + [model.head]
    for i, layer in enumerate(linear, start=1):
        arrays[f"w{i}"] = layer.weight.detach().numpy().astype(np.float32)
        arrays[f"b{i}"] = layer.bias.detach().numpy().astype(np.float32)
    arrays["input_mean"] = np.asarray(mean, dtype=np.float32)
    arrays["input_std"] = np.asarray(std, dtype=np.float32)
    return arrays


def gateway_forward(arrays, x):
    """The gateway's own forward pass (numpy, GELU by tanh approximation), for the self-test."""
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
    got = gateway_forward(arrays, x)
    agree = float((ref.argmax(1) == got.argmax(1)).mean())
    return agree, float(np.abs(ref - got).max())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--out", default="gateway/wheelnet.npz")
    parser.add_argument("--config", default="configs/fleet26.toml")
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    model = load_finetuned(args.checkpoint, cfg)
    _, (mean, std) = load_pretrained(cfg.model.pretrained)
    arrays = gateway_arrays(model, mean, std)
    agree, err = self_test(model, arrays, mean, std)
    if agree < 0.98:
        raise SystemExit(f"gateway forward disagrees with the model on {1 - agree:.1%} of the test inputs")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, **arrays)
    meta = {"conditions": list(model.classes), "fingerprint": fingerprint(arrays), "max_logit_error": err}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {out} ({meta['fingerprint']}); self-test agreement {agree:.3f}, max logit error {err:.2e}")


if __name__ == "__main__":
    main()

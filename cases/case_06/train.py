"""Train the next-hour load forecaster. Usage: python train.py [--key=value ...] (see Config)."""

import math
import sys
import time
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F

from data import check_shards, iterate_batches, load_shards
from features import TargetScaler, encode, n_inputs, standardize
from model import LoadForecaster


@dataclass
class Config:
    seed: int = 0
    data_dir: str = "data"
    batch_size: int = 64
    epochs: int = 3
    hidden: int = 64
    lr: float = 3e-3
    weight_decay: float = 1e-4
    grad_clip: float = 1.0
    log_every: int = 5


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        kind = types[key] if isinstance(types[key], type) else {"int": int, "float": float, "str": str}[types[key]]
        setattr(cfg, key, kind(value))
    return cfg


def train(cfg, shards=None):
    torch.manual_seed(cfg.seed)
    if shards is None:
        shards = load_shards(cfg.data_dir)
        check_shards(shards)
    scaler = TargetScaler(torch.cat([s["y"] for s in shards]))
    model = LoadForecaster(n_inputs(), cfg.hidden)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    history = []
    batches = iterate_batches(shards, cfg.batch_size, cfg.seed, cfg.epochs)
    for step, (epoch, shard, i, raw, y) in enumerate(batches):
        x = standardize(encode(raw))
        mu, var = model(x)
        loss = F.gaussian_nll_loss(mu, scaler.transform(y), var)
        if not math.isfinite(loss.item()):
            raise FloatingPointError(f"loss is {loss.item()} at step {step} (epoch {epoch}, {shard} batch {i})")
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip).item()
        opt.step()
        with torch.no_grad():
            mae = (scaler.inverse(mu) - y).abs().mean().item()
        history.append({"step": step, "epoch": epoch, "shard": shard, "loss": loss.item(), "mae_kwh": mae})
        if step % cfg.log_every == 0:
            print(f"step {step:4d} | epoch {epoch} | {shard} | nll {loss.item():7.4f} | "
                  f"mae {mae:6.2f} kWh | grad norm {gnorm:.3f}", flush=True)
    return model, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    t0 = time.time()
    _, history = train(cfg)
    last = history[-20:]
    print(f"final mae {sum(h['mae_kwh'] for h in last) / len(last):.2f} kWh (last {len(last)} steps)")
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

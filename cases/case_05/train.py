"""Train the character-level MLP. Usage: python train.py [--key=value ...] (see Config)."""

import json
import sys
import time
from dataclasses import asdict, dataclass, fields

import torch
import torch.nn.functional as F

from data import batches, build_vocab, make_words, windows
from model import CharMLP
from monitor import param_norm, update_ratios
from schedule import lr_at, param_groups


@dataclass
class Config:
    seed: int = 0
    n_words: int = 3000
    block_size: int = 3
    n_embd: int = 16
    hidden: int = 128
    batch_size: int = 64
    steps: int = 300
    lr: float = 3e-3
    warmup: int = 40
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    log_every: int = 50
    metrics_file: str = ""


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        kind = {"int": int, "float": float, "str": str}[getattr(types[key], "__name__", types[key])]
        setattr(cfg, key, kind(value))
    return cfg


def train(cfg):
    torch.manual_seed(cfg.seed)
    words = make_words(cfg.n_words, seed=cfg.seed)
    stoi = build_vocab(make_words(cfg.n_words, seed=0))
    n_val = len(words) // 10
    x_train, y_train = windows(words[n_val:], stoi, cfg.block_size)
    x_val, y_val = windows(words[:n_val], stoi, cfg.block_size)
    model = CharMLP(len(stoi), cfg.block_size, cfg.n_embd, cfg.hidden)
    opt = torch.optim.AdamW(param_groups(model, cfg.weight_decay), lr=cfg.lr, betas=(0.9, 0.99))
    stream = batches(x_train, y_train, cfg.batch_size, seed=cfg.seed)
    sink = open(cfg.metrics_file, "w") if cfg.metrics_file else None
    history = []
    for step in range(1, cfg.steps + 1):
        lr = lr_at(step - 1, cfg.lr, cfg.warmup, cfg.steps)
        for group in opt.param_groups:
            group["lr"] = lr
        xb, yb = next(stream)
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip).item()
        opt.step()
        if step == 1 or step % cfg.log_every == 0:
            with torch.no_grad():
                val_loss = F.cross_entropy(model(x_val), y_val).item()
            row = {"step": step, "lr": lr, "loss": loss.item(), "val_loss": val_loss, "grad_norm": gnorm,
                   "param_norm": param_norm(model), "update_ratio": update_ratios(model, lr)}
            history.append(row)
            if sink:
                sink.write(json.dumps(row) + "\n")
            ratios = " ".join(f"{k.split('.')[0]} {v:+.2f}" for k, v in row["update_ratio"].items())
            print(f"step {step:4d} | lr {lr:.2e} | loss {row['loss']:.3f} | val {val_loss:.3f} | "
                  f"grad {gnorm:.2f} | log10 upd/param: {ratios}", flush=True)
    if sink:
        sink.close()
    return model, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    t0 = time.time()
    print("config:", json.dumps(asdict(cfg)))
    train(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Train the bearing-fault classifier. Usage: python train.py [--key=value ...] (see Config)."""

import copy
import sys
import time
from dataclasses import dataclass, fields

import torch

from data import CLASSES, N_FEATURES, Loader, make_split
from engine import run_epoch
from model import FaultNet


@dataclass
class Config:
    seed: int = 0
    n_train: int = 2048
    n_val: int = 512
    batch_size: int = 64
    epochs: int = 8
    hidden: int = 128
    dropout: float = 0.3
    lr: float = 1e-3
    weight_decay: float = 1e-4
    out: str = "checkpoint.pt"


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


def train(cfg):
    torch.manual_seed(cfg.seed)
    x_train, y_train = make_split(cfg.n_train, seed=cfg.seed)
    x_val, y_val = make_split(cfg.n_val, seed=cfg.seed + 1000)
    train_loader = Loader(x_train, y_train, cfg.batch_size, shuffle=True, augment=True, seed=cfg.seed)
    val_loader = Loader(x_val, y_val, cfg.batch_size)
    model = FaultNet(N_FEATURES, len(CLASSES), cfg.hidden, cfg.dropout)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    history, best = [], None
    for epoch in range(1, cfg.epochs + 1):
        tr = run_epoch(model, train_loader, opt)
        model.eval()
        va = run_epoch(model, val_loader)
        history.append({"epoch": epoch, "train": tr, "val": va})
        if best is None or va["loss"] < best[1]["loss"]:
            best = (epoch, va, copy.deepcopy(model.state_dict()))
        print(f"epoch {epoch:2d} | train loss {tr['loss']:.4f} acc {tr['acc']:.3f} | "
              f"val loss {va['loss']:.4f} acc {va['acc']:.3f}", flush=True)
    epoch, va, state = best
    model.load_state_dict(state)
    print(f"best epoch {epoch}: val loss {va['loss']:.4f} acc {va['acc']:.3f}")
    model.eval()
    again = [run_epoch(model, val_loader) for _ in range(3)]
    print("best checkpoint re-validated: " + ", ".join(f"loss {r['loss']:.4f} acc {r['acc']:.3f}" for r in again))
    torch.save({"model": state, "config": vars(cfg)}, cfg.out)
    return model, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    t0 = time.time()
    train(cfg)
    print(f"saved {cfg.out}; done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

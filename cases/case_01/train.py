"""Train the activity classifier. Usage: python train.py [--key=value ...] (see Config)."""

import sys
import time
from dataclasses import dataclass, fields

import torch
import torch.nn as nn

from data import batches, make_dataset
from metrics import accuracy, grad_norm, max_entropy, predictive_entropy
from model import Classifier


@dataclass
class Config:
    seed: int = 0
    n_train: int = 4000
    n_val: int = 1000
    n_features: int = 32
    n_classes: int = 10
    hidden: int = 64
    batch_size: int = 64
    steps: int = 500
    lr: float = 0.05
    log_every: int = 50


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        setattr(cfg, key, (int if types[key] in (int, "int") else float)(value))
    return cfg


def train(cfg):
    torch.manual_seed(cfg.seed)
    x_train, y_train = make_dataset(cfg.n_train, cfg.n_features, cfg.n_classes, seed=cfg.seed)
    x_val, y_val = make_dataset(cfg.n_val, cfg.n_features, cfg.n_classes, seed=cfg.seed + 100)
    model = Classifier(cfg.n_features, cfg.n_classes, cfg.hidden)
    opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
    criterion = nn.CrossEntropyLoss()
    stream = batches(x_train, y_train, cfg.batch_size, seed=cfg.seed)
    history = []
    for step in range(cfg.steps + 1):
        xb, yb = next(stream)
        out = model(xb)
        loss = criterion(out, yb)
        opt.zero_grad()
        loss.backward()
        if step % cfg.log_every == 0:
            with torch.no_grad():
                val_out = model(x_val)
            row = {"step": step, "loss": loss.item(), "val_acc": accuracy(val_out, y_val),
                   "entropy": predictive_entropy(val_out), "head_grad": grad_norm(model.head)}
            history.append(row)
            print(f"step {step:4d} | loss {row['loss']:.4f} | val acc {row['val_acc']:.3f} | "
                  f"entropy {row['entropy']:.3f} (max {max_entropy(cfg.n_classes):.3f}) | "
                  f"head grad {row['head_grad']:.2e}", flush=True)
        if step < cfg.steps:
            opt.step()
    return model, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    t0 = time.time()
    train(cfg)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

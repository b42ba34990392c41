"""Train the gesture classifier. Usage: python train.py [--key=value ...] (see Config)."""

import sys
import time
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F

from data import N_CHANNELS, N_CLASSES, batches, collate, make_dataset
from model import GestureNet


@dataclass
class Config:
    seed: int = 0
    n_train: int = 2000
    n_val: int = 500
    hidden: int = 32
    dropout: float = 0.1
    batch_size: int = 32
    eval_batch_size: int = 100
    steps: int = 150
    lr: float = 3e-3
    log_every: int = 25


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        setattr(cfg, key, (int if types[key] in (int, "int") else float)(value))
    return cfg


@torch.no_grad()
def evaluate(model, xs, ys, batch_size):
    was_training = model.training
    model.eval()
    losses, preds = [], []
    for i in range(0, len(xs), batch_size):
        x, lengths = collate(xs[i:i + batch_size])
        logits = model(x, lengths)
        losses.append(F.cross_entropy(logits, ys[i:i + batch_size], reduction="sum"))
        preds.append(logits.argmax(dim=-1))
    model.train(was_training)
    preds = torch.cat(preds)
    return torch.stack(losses).sum().item() / len(xs), (preds == ys).float().mean().item(), preds


def train(cfg):
    torch.manual_seed(cfg.seed)
    xs_train, y_train = make_dataset(cfg.n_train, seed=cfg.seed)
    xs_val, y_val = make_dataset(cfg.n_val, seed=cfg.seed + 100)
    model = GestureNet(N_CHANNELS, N_CLASSES, cfg.hidden, cfg.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    stream = batches(xs_train, y_train, cfg.batch_size, seed=cfg.seed)
    history = []
    model.train()
    for step in range(cfg.steps + 1):
        x, lengths, y = next(stream)
        loss = F.cross_entropy(model(x, lengths), y)
        if step % cfg.log_every == 0:
            val_loss, val_acc, _ = evaluate(model, xs_val, y_val, cfg.eval_batch_size)
            history.append({"step": step, "loss": loss.item(), "val_loss": val_loss, "val_acc": val_acc})
            print(f"step {step:4d} | train loss {loss.item():.4f} | val loss {val_loss:.4f} | val acc {val_acc:.3f}",
                  flush=True)
        if step < cfg.steps:
            opt.zero_grad()
            loss.backward()
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

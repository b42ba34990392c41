"""Train a glyph encoder with a soft nearest-neighbour (memory bank) objective.

Usage: python train.py [--key=value ...] (see Config).
"""

import math
import sys
import time
from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, random_split

from data import GlyphSet, make_glyphs
from model import Encoder, MemoryBank


@dataclass
class Config:
    seed: int = 0
    n_classes: int = 100
    per_class: int = 10
    val_frac: float = 0.2
    dim: int = 64
    tau: float = 0.04
    batch_size: int = 64
    steps: int = 60
    lr: float = 1e-3
    refresh_every: int = 10
    log_every: int = 20


def parse_args(argv):
    cfg = Config()
    types = {f.name: f.type for f in fields(Config)}
    for arg in argv:
        key, _, value = arg.lstrip("-").partition("=")
        if key not in types:
            raise SystemExit(f"unknown option --{key}")
        setattr(cfg, key, (int if types[key] in (int, "int") else float)(value))
    return cfg


def build_splits(cfg):
    images, labels = make_glyphs(cfg.n_classes, cfg.per_class, seed=cfg.seed)
    full = GlyphSet(images, labels)
    n_val = int(len(full) * cfg.val_frac)
    return random_split(full, [len(full) - n_val, n_val], generator=torch.Generator().manual_seed(cfg.seed))


class Normalizer:
    """Per-pixel standardization with statistics from the training loader."""

    def fit(self, loader):
        xs = torch.cat([x for x, _, _ in loader])
        self.mean, self.std = xs.mean(0), xs.std(0)
        return self

    def __call__(self, x):
        return (x - self.mean) / self.std


@torch.no_grad()
def refresh_bank(encoder, norm, subset, n_classes):
    """Embed every labelled training image in one pass (faster than going through the loader)."""
    ds = subset.dataset
    encoder.eval()
    keys = encoder(norm(ds.images))
    encoder.train()
    return MemoryBank(keys, ds.labels, torch.arange(len(ds)), n_classes)


@torch.no_grad()
def evaluate(encoder, norm, bank, loader, tau):
    encoder.eval()
    logp, ys = [], []
    for x, y, _ in loader:
        logp.append(bank.log_probs(encoder(norm(x)), tau))
        ys.append(y)
    encoder.train()
    logp, ys = torch.cat(logp), torch.cat(ys)
    return F.nll_loss(logp, ys).item(), (logp.argmax(-1) == ys).float().mean().item()


def forever(loader):
    while True:
        yield from loader


def train(cfg):
    torch.manual_seed(cfg.seed)
    train_set, val_set = build_splits(cfg)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True,
                              generator=torch.Generator().manual_seed(cfg.seed))
    val_loader = DataLoader(val_set, batch_size=256)
    norm = Normalizer().fit(DataLoader(train_set, batch_size=256))
    encoder = Encoder(cfg.dim)
    opt = torch.optim.Adam(encoder.parameters(), lr=cfg.lr)
    print(f"{len(train_set)} train / {len(val_set)} val images, {cfg.n_classes} classes "
          f"(chance: loss {math.log(cfg.n_classes):.3f}, acc {1 / cfg.n_classes:.3f})")
    stream = forever(train_loader)
    history = []
    t0 = time.time()
    for step in range(cfg.steps + 1):
        if step % cfg.refresh_every == 0:
            bank = refresh_bank(encoder, norm, train_set, cfg.n_classes)
        x, y, ids = next(stream)
        logp = bank.log_probs(encoder(norm(x)), cfg.tau, query_ids=ids)
        loss = F.nll_loss(logp, y)
        if step % cfg.log_every == 0 or step == cfg.steps:
            val_loss, val_acc = evaluate(encoder, norm, bank, val_loader, cfg.tau)
            history.append({"step": step, "loss": loss.item(), "val_loss": val_loss, "val_acc": val_acc})
            print(f"step {step:4d} | train loss {loss.item():.4f} | val loss {val_loss:.4f} | "
                  f"val acc {val_acc:.3f}", flush=True)
        if step < cfg.steps:
            opt.zero_grad()
            loss.backward()
            opt.step()
    print(f"{cfg.steps} steps in {time.time() - t0:.1f}s")
    return encoder, norm, bank, history


def main(argv):
    torch.set_num_threads(1)
    cfg = parse_args(argv)
    train(cfg)


if __name__ == "__main__":
    main(sys.argv[1:])

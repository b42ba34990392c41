"""Evaluate a saved checkpoint on the validation split. Usage: python evaluate.py [checkpoint.pt]"""

import sys

import torch
import torch.nn.functional as F

from data import CLASSES, N_FEATURES, make_split
from model import FaultNet


@torch.no_grad()
def evaluate(path="checkpoint.pt"):
    ckpt = torch.load(path)
    cfg = ckpt["config"]
    model = FaultNet(N_FEATURES, len(CLASSES), cfg["hidden"], cfg["dropout"])
    model.load_state_dict(ckpt["model"])
    model.eval()
    x, y = make_split(cfg["n_val"], seed=cfg["seed"] + 1000)
    logits = model(x)
    loss = F.cross_entropy(logits, y).item()
    acc = (logits.argmax(-1) == y).float().mean().item()
    per_class = [(logits.argmax(-1)[y == k] == k).float().mean().item() for k in range(len(CLASSES))]
    return loss, acc, per_class


if __name__ == "__main__":
    torch.set_num_threads(1)
    loss, acc, per_class = evaluate(*sys.argv[1:])
    print(f"val loss {loss:.4f} acc {acc:.3f} | " + " ".join(f"{c} {a:.2f}" for c, a in zip(CLASSES, per_class)))

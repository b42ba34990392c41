"""Learning-rate range test (Smith, 2017): raise the lr exponentially over a short run, watch the loss.

    python lr_finder.py --config configs/experiment.toml [--set ...] [--start 1e-5 --end 1 --steps 100]

Uses the config's model, data and optimizer (its schedule is ignored) and prints the smoothed loss
per lr plus the lr of the steepest descent, a common starting point for the peak lr.
"""

import argparse
import math
import sys

import torch
import torch.nn.functional as F

from config import load_config
from dataset import BatchStream, build_datasets
from models import build_model
from optim import build_optimizer, clip_gradients
from tokenizer import CharTokenizer


def range_test(cfg, start=1e-5, end=1.0, steps=100, beta=0.9, diverge=4.0):
    """[(lr, smoothed loss)] until the loss exceeds `diverge` x its best value."""
    torch.manual_seed(cfg.train.seed)
    tokenizer = CharTokenizer.from_alphabet()
    data = build_datasets(cfg.data, tokenizer, seed=cfg.train.seed)
    model = build_model(cfg.model, tokenizer.vocab_size, cfg.data.block_size)
    opt = build_optimizer(cfg.optim, model)
    stream = BatchStream(*data["train"], cfg.train.batch_size, seed=cfg.train.seed)
    factor = (end / start) ** (1 / max(1, steps - 1))
    avg, best, curve = 0.0, math.inf, []
    for i in range(steps):
        lr = start * factor ** i
        for group in opt.param_groups:
            group["lr"] = lr
        xb, yb = next(stream)
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        clip_gradients(model.parameters(), cfg.optim.grad_clip)
        opt.step()
        avg = beta * avg + (1 - beta) * loss.item()
        smooth = avg / (1 - beta ** (i + 1))
        curve.append((lr, smooth))
        best = min(best, smooth)
        if smooth > diverge * best or not math.isfinite(smooth):
            break
    return curve


def steepest(curve, skip=5):
    """The lr where the smoothed loss falls fastest per decade of lr."""
    best_lr, best_slope = None, math.inf
    for (lr0, l0), (lr1, l1) in zip(curve[skip:], curve[skip + 1:]):
        slope = (l1 - l0) / (math.log10(lr1) - math.log10(lr0))
        if slope < best_slope:
            best_lr, best_slope = lr1, slope
    return best_lr


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default="configs/base.toml")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    parser.add_argument("--start", type=float, default=1e-5)
    parser.add_argument("--end", type=float, default=1.0)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    curve = range_test(load_config(args.config, args.overrides), args.start, args.end, args.steps)
    for lr, loss in curve[::5]:
        print(f"lr {lr:.2e} | loss {loss:.3f}")
    print(f"steepest descent at lr {steepest(curve):.2e}")


if __name__ == "__main__":
    main(sys.argv[1:])

"""Confidence calibration for the hub's "are we sure enough to switch away mode" threshold.

Fits one temperature on the validation logits and prints the expected calibration error before and after.

    python calibrate.py [--config configs/home.toml] [--set section.key=value ...] [--bins 10]
"""

import argparse

import torch
import torch.nn.functional as F

from config import load_config
from data import EncodedSet, iterate_batches, load_sessions, split_sessions
from train import run


def expected_calibration_error(probs, labels, bins=10):
    conf, pred = probs.max(-1)
    correct = (pred == labels).float()
    edges = torch.linspace(0, 1, bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (conf > lo) & (conf <= hi)
        if inside.any():
            ece += inside.float().mean() * (conf[inside].mean() - correct[inside].mean()).abs()
    return ece.item()


def fit_temperature(logits, labels, steps=50):
    log_t = torch.zeros((), requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=steps)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), labels)
        loss.backward()
        return loss

    opt.step(closure)
    return log_t.exp().item()


@torch.no_grad()
def validation_logits(model, vocab, cfg):
    _, val_s = split_sessions(load_sessions(cfg.data.root))
    val = EncodedSet(val_s, vocab, cfg.data.max_events)
    model.eval()
    logits = [model(t, n, ts) for t, n, ts, _ in iterate_batches(val, cfg.train.eval_batch_size, shuffle=False)]
    return torch.cat(logits), val.labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/home.toml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--bins", type=int, default=10)
    args = parser.parse_args()
    cfg = load_config(args.config, args.set)
    result = run(cfg, verbose=False)
    logits, labels = validation_logits(result["model"], result["vocab"], cfg)
    t = fit_temperature(logits, labels)
    before = expected_calibration_error(logits.softmax(-1), labels, args.bins)
    after = expected_calibration_error((logits / t).softmax(-1), labels, args.bins)
    print(f"temperature {t:.3f}: ECE {before:.4f} -> {after:.4f}")


if __name__ == "__main__":
    main()

"""Score a saved model on the held-out sessions, per bird and per bout length.

    python train.py --set train.out_dir=runs/x && python evaluate.py runs/x [--config ...]
"""

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch

from config import load_config
from metrics import LENGTH_BINS, score_examples
from models import SongFormer
from train import load_corpus


def by_bird(rows, examples):
    hits, totals = defaultdict(float), defaultdict(float)
    for (n, hit, _), e in zip(rows, examples):
        hits[e.bird] += hit
        totals[e.bird] += n
    return {b: hits[b] / max(1.0, totals[b]) for b in sorted(totals)}


def by_length(rows, examples):
    lengths = np.array([e.n_syllables for e in examples])
    out = {}
    for lo, hi, name in LENGTH_BINS:
        sel = (lengths >= lo) & (lengths <= hi)
        out[name] = (rows[sel, 1].sum() / max(1.0, rows[sel, 0].sum()), int(sel.sum()))
    return out


def load_model(run_dir, cfg, vocab):
    m = cfg.model
    model = SongFormer(vocab.size, vocab.size, m.dim, m.heads, m.layers, m.max_len, m.dropout)
    model.load_state_dict(torch.load(Path(run_dir) / "songformer.pt", weights_only=True))
    return model.eval()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--config", default="configs/spring26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.set)
    vocab, _, val_ex = load_corpus(cfg)
    model = load_model(args.run_dir, cfg, vocab)
    rows = score_examples(model, val_ex)
    print(f"val acc {rows[:, 1].sum() / rows[:, 0].sum():.4f} over {len(val_ex)} bouts")
    for name, (acc, n) in by_length(rows, val_ex).items():
        print(f"  {name:6s} {acc:.4f} ({n} bouts)")
    for bird, acc in by_bird(rows, val_ex).items():
        print(f"  {bird} {acc:.4f}")


if __name__ == "__main__":
    main()

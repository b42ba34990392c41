"""Look at a ticket export: tickets per queue and channel, vocabulary coverage, each queue's telling words.

python inspect_data.py --config configs/router.toml [--top 8]"""

import argparse
import math
import sys
from collections import Counter, defaultdict

from config import load_config
from dataset import QUEUES, read_tickets
from textproc import Vocab, tokenize


def queue_table(rows):
    by_queue = Counter(r["queue"] for r in rows)
    by_channel = defaultdict(Counter)
    for r in rows:
        by_channel[r["queue"]][r.get("channel", "?")] += 1
    return by_queue, by_channel


def telling_words(rows, top=8, min_count=3):
    """Words most specific to each queue: log-odds of the word in the queue against the rest (smoothed)."""
    per_queue = defaultdict(Counter)
    overall = Counter()
    for r in rows:
        toks = set(tokenize(r["text"]))
        per_queue[r["queue"]].update(toks)
        overall.update(toks)
    n_queue = Counter(r["queue"] for r in rows)
    total = len(rows)
    out = {}
    for q in QUEUES:
        scores = []
        for w, c in per_queue[q].items():
            if overall[w] < min_count:
                continue
            inside = (c + 0.5) / (n_queue[q] + 1)
            outside = (overall[w] - c + 0.5) / (total - n_queue[q] + 1)
            scores.append((math.log(inside / outside), w, c))
        out[q] = sorted(scores, reverse=True)[:top]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="configs/router.toml")
    parser.add_argument("--top", type=int, default=8)
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    train = read_tickets(cfg.data.train_path)
    val = read_tickets(cfg.data.val_path)
    vocab = Vocab.build((r["text"] for r in train), cfg.data.min_count, cfg.data.lowercase)
    print(f"train {len(train)} / val {len(val)} tickets, vocab {len(vocab)}, "
          f"val coverage {vocab.coverage(r['text'] for r in val):.3f}")
    counts, channels = queue_table(train)
    for q in QUEUES:
        mix = " ".join(f"{c}:{n}" for c, n in sorted(channels[q].items()))
        print(f"{q:16s} {counts[q]:5d}  {mix}")
    for q, words in telling_words(train, args.top).items():
        print(f"{q:16s} " + ", ".join(f"{w}({c})" for _, w, c in words))


if __name__ == "__main__":
    main(sys.argv[1:])

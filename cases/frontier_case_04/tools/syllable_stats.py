"""Per-bird syntax statistics from the exports: how fixed each bird's syllable order is.

    python -m tools.syllable_stats [export_dir]

For every bird: the number of bouts and syllables, the entropy of the next syllable given the current one
(bits, weighted by how often each syllable is sung), and the share of transitions that follow the bird's
most common successor of each syllable. Adults with a crystallized song sit near the top of that share;
plastic (juvenile) song sits lower.
"""

import math
import sys
from collections import Counter, defaultdict

from exports import load_birds, load_bouts


def transition_counts(bouts):
    counts = defaultdict(Counter)
    for b in bouts:
        for a, c in zip(b.syllables, b.syllables[1:]):
            counts[a][c] += 1
    return counts


def conditional_entropy(counts):
    total = sum(sum(c.values()) for c in counts.values())
    h = 0.0
    for succ in counts.values():
        n = sum(succ.values())
        for k in succ.values():
            p = k / n
            h -= (n / total) * p * math.log2(p)
    return h


def top_successor_share(counts):
    total = sum(sum(c.values()) for c in counts.values())
    return sum(max(c.values()) for c in counts.values()) / max(1, total)


def per_bird(bouts):
    by_bird = defaultdict(list)
    for b in bouts:
        by_bird[b.bird].append(b)
    rows = []
    for bird in sorted(by_bird):
        counts = transition_counts(by_bird[bird])
        rows.append({"bird": bird, "bouts": len(by_bird[bird]),
                     "syllables": sum(len(b.syllables) for b in by_bird[bird]),
                     "entropy_bits": conditional_entropy(counts),
                     "top_share": top_successor_share(counts)})
    return rows


def main(export_dir="data/exports"):
    bouts = load_bouts(export_dir)
    cohorts = load_birds(export_dir)
    print(f"{'bird':5s} {'cohort':7s} {'bouts':>6s} {'syll':>6s} {'H(next|cur)':>12s} {'top share':>10s}")
    for r in per_bird(bouts):
        print(f"{r['bird']:5s} {cohorts.get(r['bird'], '?'):7s} {r['bouts']:6d} {r['syllables']:6d} "
              f"{r['entropy_bits']:12.3f} {r['top_share']:10.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:])

"""Summarize the exports: bouts per bird and booth, bout lengths, the session log's span.

    python -m tools.summarize_exports [export_dir]
"""

import sys
from collections import Counter

import numpy as np

from exports import load_birds, load_bouts
from sessionlog import SessionLog


def summarize(export_dir="data/exports"):
    bouts = load_bouts(export_dir)
    cohorts = load_birds(export_dir)
    log = SessionLog.read(export_dir)
    lines = [f"{len(bouts):,} bouts, {len({(b.booth, b.session) for b in bouts})} sessions",
             f"session log: {len(log)} sessions {log.span()[0]} .. {log.span()[1]}, per booth {log.per_booth()}"]
    per_bird = Counter(b.bird for b in bouts)
    for bird in sorted(per_bird):
        lens = np.array([len(b.syllables) for b in bouts if b.bird == bird])
        lines.append(f"  {bird} ({cohorts.get(bird, '?')}): {per_bird[bird]:4d} bouts, "
                     f"median {np.median(lens):.0f} syllables, max {lens.max()}")
    syl = Counter(s for b in bouts for s in b.syllables)
    lines.append("syllables: " + " ".join(f"{s}:{n}" for s, n in sorted(syl.items())))
    return lines


if __name__ == "__main__":
    print("\n".join(summarize(*sys.argv[1:])))

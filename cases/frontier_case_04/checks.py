"""Sanity checks on the exports before training."""

from collections import Counter


def check_bouts(bouts, min_len=3, max_len=62):
    problems = []
    short = sum(len(b.syllables) < min_len for b in bouts)
    if short:
        problems.append(f"{short} bouts shorter than {min_len} syllables")
    long = sum(len(b.syllables) > max_len for b in bouts)
    if long:
        problems.append(f"{long} bouts longer than {max_len} syllables (cut to the row)")
    dup = Counter((b.booth, b.session, b.bout) for b in bouts)
    n_dup = sum(c > 1 for c in dup.values())
    if n_dup:
        problems.append(f"{n_dup} (booth, session, bout) keys appear more than once")
    return problems

"""Sanity checks on the exports, printed at start-up."""

import numpy as np


def short_spans(segments, tag, min_len):
    """Number of contiguous runs of `tag` shorter than `min_len` frames."""
    n = 0
    for s in segments:
        on = np.r_[0, (s.tags == tag).astype(np.int8), 0]
        starts, ends = np.flatnonzero(np.diff(on) == 1), np.flatnonzero(np.diff(on) == -1)
        n += int(((ends - starts) < min_len).sum())
    return n


def check_manifest(manifest):
    problems = []
    ids = [r["segment"] for r in manifest]
    if len(set(ids)) != len(ids):
        problems.append(f"{len(ids) - len(set(ids))} duplicate segment ids")
    bad = [r["segment"] for r in manifest if r["frames"] <= 0]
    if bad:
        problems.append(f"{len(bad)} segments with no frames")
    return problems

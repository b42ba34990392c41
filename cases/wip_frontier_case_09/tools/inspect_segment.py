"""Print one segment's trace around its tagged spans: raw counts per channel and the analysts' tags.

    python -m tools.inspect_segment R2601-004 [--data data] [--context 3]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from export import CHANNELS, TAGS, load_segments, read_manifest  # noqa: E402


def spans(tags):
    """[(start, end, tag)] for every contiguous run of a non-wall tag."""
    out = []
    t = 0
    while t < len(tags):
        if tags[t] != 0:
            end = t
            while end < len(tags) and tags[end] == tags[t]:
                end += 1
            out.append((t, end, int(tags[t])))
            t = end
        else:
            t += 1
    return out


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("segment")
    parser.add_argument("--data", default="data")
    parser.add_argument("--context", type=int, default=3)
    args = parser.parse_args(argv)
    manifest = read_manifest(args.data)
    row = next((r for r in manifest if r["segment"] == args.segment), None)
    if row is None:
        raise SystemExit(f"{args.segment}: not in the manifest")
    seg = next(s for s in load_segments(args.data, [row]))
    print(f"{seg.seg_id} | run {seg.run} | {len(seg.tags)} frames | start {row['start_km']} km")
    print("tag frames: " + ", ".join(f"{n} {c}" for n, c in zip(TAGS, np.bincount(seg.tags, minlength=len(TAGS)))))
    for a, b, tag in spans(seg.tags):
        lo, hi = max(0, a - args.context), min(len(seg.tags), b + args.context)
        print(f"-- {TAGS[tag]} at frames {a}-{b - 1}")
        print("   frame " + " ".join(f"{c:>7s}" for c in CHANNELS) + "  tag")
        for t in range(lo, hi):
            print(f"   {t:5d} " + " ".join(f"{v:7d}" for v in seg.counts[t]) + f"  {TAGS[seg.tags[t]]}")


if __name__ == "__main__":
    main()

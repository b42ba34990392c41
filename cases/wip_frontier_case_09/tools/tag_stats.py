"""Label statistics per tag: span counts, span lengths and the share of frames, over chosen runs.

    python -m tools.tag_stats [--data data] [--runs R2601,R2602]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from export import TAGS, load_segments, read_manifest  # noqa: E402
from spans import span_lengths  # noqa: E402


def stats(segments):
    tags = [s.tags for s in segments]
    frames = np.bincount(np.concatenate(tags), minlength=len(TAGS))
    out = {}
    for t, name in enumerate(TAGS):
        lengths = span_lengths(tags, t) if t else []
        out[name] = {
            "frames": int(frames[t]),
            "share": float(frames[t] / frames.sum()),
            "spans": len(lengths),
            "length_p10": float(np.percentile(lengths, 10)) if lengths else float("nan"),
            "length_median": float(np.median(lengths)) if lengths else float("nan"),
            "length_p90": float(np.percentile(lengths, 90)) if lengths else float("nan"),
        }
    return out


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data")
    parser.add_argument("--runs", default="")
    args = parser.parse_args(argv)
    segments = load_segments(args.data, read_manifest(args.data))
    if args.runs:
        keep = set(args.runs.split(","))
        segments = [s for s in segments if s.run in keep]
    print(f"{'tag':11s} {'frames':>7s} {'share':>6s} {'spans':>6s} {'len p10':>7s} {'median':>7s} {'p90':>6s}")
    for name, st in stats(segments).items():
        print(f"{name:11s} {st['frames']:7d} {st['share']:6.3f} {st['spans']:6d} {st['length_p10']:7.1f} "
              f"{st['length_median']:7.1f} {st['length_p90']:6.1f}")


if __name__ == "__main__":
    main()

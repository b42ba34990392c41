"""Per-run summary of the exports: segments, frames, tool, and frames per tag.

    python -m tools.summarize_runs [--data data]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from export import TAGS, load_segments, read_manifest  # noqa: E402


def summarize(data_dir):
    manifest = read_manifest(data_dir)
    segments = load_segments(data_dir, manifest)
    tools = {r["run"]: r["tool"] for r in manifest}
    rows = []
    for run in sorted({s.run for s in segments}):
        segs = [s for s in segments if s.run == run]
        tags = np.concatenate([s.tags for s in segs])
        rows.append((run, tools[run], len(segs), len(tags), np.bincount(tags, minlength=len(TAGS))))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data")
    args = parser.parse_args(argv)
    print(f"{'run':6s} {'tool':6s} {'segs':>5s} {'frames':>7s} " + " ".join(f"{t:>10s}" for t in TAGS))
    for run, tool, n, frames, counts in summarize(args.data):
        print(f"{run:6s} {tool:6s} {n:5d} {frames:7d} " + " ".join(f"{c:10d}" for c in counts))


if __name__ == "__main__":
    main()

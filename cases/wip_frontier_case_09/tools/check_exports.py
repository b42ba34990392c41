"""Check the exports before training: every manifest row has its trace, lengths agree, tags are valid,
no channel is flat, and every run has one tool.

    python -m tools.check_exports [--data data]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from export import TAGS, load_segments, read_manifest  # noqa: E402


def problems(data_dir):
    out = []
    manifest = read_manifest(data_dir)
    tools = {}
    for r in manifest:
        tools.setdefault(r["run"], set()).add(r["tool"])
    for run, ts in sorted(tools.items()):
        if len(ts) != 1:
            out.append(f"{run}: {len(ts)} tools in one run: {sorted(ts)}")
    try:
        segments = load_segments(data_dir, manifest)
    except (KeyError, ValueError) as exc:
        return out + [f"cannot load: {exc}"]
    for s in segments:
        if s.tags.min() < 0 or s.tags.max() >= len(TAGS):
            out.append(f"{s.seg_id}: tag values outside 0..{len(TAGS) - 1}")
        flat = [c for c in range(s.counts.shape[1]) if np.ptp(s.counts[:, c]) == 0]
        if flat:
            out.append(f"{s.seg_id}: flat channel(s) {flat}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data")
    args = parser.parse_args(argv)
    found = problems(args.data)
    for p in found:
        print(p)
    print(f"{len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

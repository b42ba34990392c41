"""A terminal plot of a run's validation accuracy per epoch (from history.json).

    python -m tools.ascii_curve runs/x [key]
"""

import sys

from tools.compare_runs import load_history


def curve(values, width=50, lo=None, hi=None):
    lo = min(values) if lo is None else lo
    hi = max(values) if hi is None else hi
    span = max(hi - lo, 1e-9)
    rows = []
    for i, v in enumerate(values, 1):
        n = int(round((v - lo) / span * width))
        rows.append(f"{i:3d} {v:.4f} |" + "#" * n)
    return rows


def main(run_dir, key="acc"):
    history = load_history(run_dir)
    values = [r[key] for r in history]
    print(f"{key} per epoch, {min(values):.4f} .. {max(values):.4f}")
    print("\n".join(curve(values)))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    main(*sys.argv[1:])

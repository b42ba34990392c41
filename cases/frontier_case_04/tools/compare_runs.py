"""Compare two training runs written with --set train.out_dir=...: epoch by epoch and at the end.

    python -m tools.compare_runs runs/v03 runs/v04
"""

import json
import sys
from pathlib import Path

KEYS = ("train_loss", "train_acc", "loss", "acc", "acc_short", "acc_medium", "acc_long")


def load_history(run_dir):
    path = Path(run_dir) / "history.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: run train.py with --set train.out_dir={run_dir}")
    return json.loads(path.read_text())


def compare(a, b, keys=KEYS):
    """Rows of (epoch, {key: (a, b, b - a)}) over the epochs both runs have."""
    by_epoch = {r["epoch"]: r for r in b}
    out = []
    for ra in a:
        rb = by_epoch.get(ra["epoch"])
        if rb is None:
            continue
        out.append((ra["epoch"], {k: (ra[k], rb[k], rb[k] - ra[k]) for k in keys if k in ra and k in rb}))
    return out


def main(dir_a, dir_b):
    rows = compare(load_history(dir_a), load_history(dir_b))
    if not rows:
        print("no common epochs")
        return
    print(f"epoch | " + " | ".join(f"{k} (a -> b)" for k in rows[0][1]))
    for epoch, vals in rows:
        print(f"{epoch:5d} | " + " | ".join(f"{x:.4f} -> {y:.4f} ({d:+.4f})" for x, y, d in vals.values()))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])

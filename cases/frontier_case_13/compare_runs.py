"""Compare the histories of exported runs (history.json of --set train.export_dir=DIR) epoch by epoch.

    python compare_runs.py runs/a runs/b [--every 5]
"""

import argparse
import json
from pathlib import Path


def load_history(run_dir):
    return json.loads((Path(run_dir) / "history.json").read_text())


def best(history, key="val_loss"):
    row = min(history, key=lambda r: r[key])
    return row["epoch"], row[key]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--every", type=int, default=5)
    args = parser.parse_args(argv)
    histories = {r: load_history(r) for r in args.runs}
    names = [Path(r).name for r in args.runs]
    print("epoch " + " ".join(f"{n[:18]:>18s}" for n in names))
    n_epochs = max(len(h) for h in histories.values())
    for e in range(0, n_epochs, args.every):
        cells = []
        for h in histories.values():
            cells.append(f"{h[e]['train_loss']:.3f}/{h[e]['val_loss']:.3f}".rjust(18) if e < len(h) else " " * 18)
        print(f"{e:5d} " + " ".join(cells))
    for name, h in zip(names, histories.values()):
        epoch, loss = best(h)
        gap = h[epoch]["val_loss"] - h[epoch]["train_loss"]
        print(f"{name}: best val loss {loss:.3f} at epoch {epoch} (gap to train {gap:+.3f})")


if __name__ == "__main__":
    main()

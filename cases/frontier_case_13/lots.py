"""Per-lot summaries of an export: maps per lot, the classes in each, and the lots with more than one
class (useful when reviewing labels with the yield engineers).

    python lots.py [--split val] [--mixed-only]
"""

import argparse
from collections import Counter, defaultdict

import numpy as np

from config import load_config
from wafers import FAIL, NO_DIE, load_export


def fail_share(bins):
    bins = np.asarray(bins)
    return float((bins == FAIL).sum() / max(1, (bins != NO_DIE).sum()))


def by_lot(ms, classes):
    lots = defaultdict(list)
    for i in range(len(ms)):
        lots[str(ms.lots[i])].append(i)
    rows = []
    for lot, idx in sorted(lots.items()):
        counts = Counter(classes[int(ms.labels[i])] for i in idx)
        shares = [fail_share(ms.bins[i]) for i in idx]
        rows.append({"lot": lot, "maps": len(idx), "classes": dict(counts), "mean_fail": float(np.mean(shares))})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["train", "val"], default="train")
    parser.add_argument("--mixed-only", action="store_true")
    parser.add_argument("--config", default="configs/cnn.toml")
    args = parser.parse_args(argv)
    train, val, classes = load_export(load_config(args.config).data.path)
    rows = by_lot(train if args.split == "train" else val, classes)
    if args.mixed_only:
        rows = [r for r in rows if len(r["classes"]) > 1]
    for r in rows:
        cls = ", ".join(f"{c} x{n}" for c, n in sorted(r["classes"].items()))
        print(f"{r['lot']:8s} {r['maps']:3d} maps  fail {r['mean_fail']:.1%}  {cls}")
    print(f"{len(rows)} lots")


if __name__ == "__main__":
    main()

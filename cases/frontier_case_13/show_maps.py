"""Print a few wafer maps of one class as text, on the model's grid ('.' pass, '#' fail).

    python show_maps.py --class center -n 3 [--split val]
"""

import argparse

import numpy as np

from config import load_config
from preprocess import prepare
from wafers import FAIL, load_export


def render(m):
    return "\n".join("".join("#" if v > 0 else "." for v in row) for row in m)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="cls", required=True)
    parser.add_argument("-n", type=int, default=3)
    parser.add_argument("--split", choices=["train", "val"], default="train")
    parser.add_argument("--config", default="configs/cnn.toml")
    args = parser.parse_args(argv)
    train, val, classes = load_export(load_config(args.config).data.path)
    ms = train if args.split == "train" else val
    cfg = load_config(args.config)
    idx = np.flatnonzero(ms.labels == classes.index(args.cls))[: args.n]
    grids = prepare(ms.subset(idx), cfg.data.grid)
    for i, g in zip(idx, grids):
        share = (ms.bins[i] == FAIL).mean()
        print(f"{args.split}[{i}] lot {ms.lots[i]} {args.cls}: {share:.0%} of dies fail")
        print(render(g))
        print()


if __name__ == "__main__":
    main()

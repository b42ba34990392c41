"""Print a few wafer maps of one class as text ('.' pass, '#' fail, ' ' no die).

    python show_maps.py --class center -n 3 [--split val]
"""

import argparse

import numpy as np

from config import load_config
from wafers import FAIL, NO_DIE, load_export

GLYPHS = {NO_DIE: " ", FAIL: "#"}


def render(m):
    return "\n".join("".join(GLYPHS.get(int(v), ".") for v in row) for row in m)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--class", dest="cls", required=True)
    parser.add_argument("-n", type=int, default=3)
    parser.add_argument("--split", choices=["train", "val"], default="train")
    parser.add_argument("--config", default="configs/cnn.toml")
    args = parser.parse_args(argv)
    train, val, classes = load_export(load_config(args.config).data.path)
    ms = train if args.split == "train" else val
    idx = np.flatnonzero(ms.labels == classes.index(args.cls))[: args.n]
    for i in idx:
        share = (ms.maps[i] == FAIL).sum() / (ms.maps[i] != NO_DIE).sum()
        print(f"{args.split}[{i}] lot {ms.lots[i]} {args.cls}: {share:.0%} of dies fail")
        print(render(ms.maps[i]))
        print()


if __name__ == "__main__":
    main()

"""Run train.py's training over several seeds (and optional overrides) and tabulate the final numbers.

    python sweep.py --seeds 0 1 2 [--set train.lr=3e-3 ...] [--out runs/sweep]
"""

import argparse
import contextlib
import io
from pathlib import Path

import numpy as np

from config import load_config
from export import TAGS
from metrics import f1s, rare_recall, recalls
from train import RARE, run


def one(config_path, overrides, seed, out_dir=""):
    sets = list(overrides) + [f"train.seed={seed}"]
    if out_dir:
        sets.append(f"train.out_dir={Path(out_dir) / f's{seed}'}")
    with contextlib.redirect_stdout(io.StringIO()):
        _, history = run(load_config(config_path, sets))
    conf = history[-1]["confusion"]
    return {"seed": seed, "acc": history[-1]["acc"], "rare": rare_recall(conf, RARE),
            "recall": recalls(conf), "f1": f1s(conf)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/ili.toml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    rows = [one(args.config, args.set, s, args.out) for s in args.seeds]
    print(f"{'seed':>4s} {'frame acc':>9s} {'rare rec':>8s} " + " ".join(f"{t + ' F1':>13s}" for t in TAGS))
    for r in rows:
        print(f"{r['seed']:4d} {r['acc']:9.4f} {r['rare']:8.4f} " + " ".join(f"{v:13.3f}" for v in r["f1"]))
    rare = np.array([r["rare"] for r in rows])
    print(f"rare recall: mean {rare.mean():.4f} | spread {rare.max() - rare.min():.4f}")


if __name__ == "__main__":
    main()

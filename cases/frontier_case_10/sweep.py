"""Run train.py's training over several seeds or one setting's values and tabulate the final numbers.

    python sweep.py --seeds 0 1 2
    python sweep.py --key augment.band_noise --values 0.2 0.3 0.4
"""

import argparse
import contextlib
import io
import re

from config import describe, load_config
from train import run

FINAL = re.compile(r"final: val acc ([0-9.]+) \| balanced acc ([0-9.]+) \| train loss ([0-9.]+)")


def one(config, overrides):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        _, history = run(load_config(config, overrides))
    m = FINAL.search(out.getvalue())
    acc, bal, train_loss = (float(v) for v in m.groups()) if m else (float("nan"),) * 3
    return {"val_loss": history[-1]["loss"], "acc": acc, "bal_acc": bal, "train_loss": train_loss}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/ridge26.toml")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0])
    parser.add_argument("--key", default="")
    parser.add_argument("--values", nargs="*", default=[])
    args = parser.parse_args(argv)
    settings = [(f"{args.key}={v}",) for v in args.values] if args.key else [()]
    for line in describe(load_config(args.config)):
        print(f"# {line}")
    print(f"{'setting':28s} {'seed':>4s} {'val loss':>8s} {'acc':>6s} {'bal acc':>7s} {'train loss':>10s}")
    for setting in settings:
        for seed in args.seeds:
            r = one(args.config, [*setting, f"train.seed={seed}"])
            label = setting[0] if setting else "(config)"
            print(f"{label:28s} {seed:4d} {r['val_loss']:8.4f} {r['acc']:6.3f} {r['bal_acc']:7.3f} {r['train_loss']:10.4f}")


if __name__ == "__main__":
    main()

"""Repeat a config over seeds and summarize: python sweep.py --config configs/plant.toml --seeds 0 1 2"""

import argparse
import statistics

from train import make_config, run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--config", default="configs/plant.toml")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    args = ap.parse_args(argv)
    rows = []
    for seed in args.seeds:
        cfg = make_config(args.config, [*args.overrides, f"seed={seed}", f"output.dir=runs/sweep/seed{seed}"])
        out = run(cfg, echo=False)
        last = out["history"][-1]
        rows.append((seed, out["best"]["val_f1"], last["val_f1"], last["val_loss"]))
        print(f"seed {seed}: best f1 {rows[-1][1]:.3f} | last f1 {rows[-1][2]:.3f} | last val loss {rows[-1][3]:.4f}")
    print(f"mean last f1 {statistics.mean(r[2] for r in rows):.3f}")


if __name__ == "__main__":
    main()

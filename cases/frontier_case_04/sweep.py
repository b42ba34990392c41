"""Run train.py's configuration over several seeds and print a summary table.

    python sweep.py --seeds 0 1 2 [--set section.key=value ...]
"""

import argparse
import contextlib
import io
import statistics

from config import load_config
from train import run

FIELDS = ("acc", "acc_short", "acc_medium", "acc_long", "acc_cohort_2024a", "acc_cohort_2025b")


def sweep(config_path, seeds, overrides=()):
    results = {}
    for seed in seeds:
        cfg = load_config(config_path, list(overrides) + [f"train.seed={seed}"])
        with contextlib.redirect_stdout(io.StringIO()):
            out = run(cfg)
        results[seed] = out["history"][-1]
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/spring26.toml")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    results = sweep(args.config, args.seeds, args.set)
    print("seed | " + " | ".join(FIELDS))
    for seed, final in results.items():
        print(f"{seed:4d} | " + " | ".join(f"{final.get(k, float('nan')):.4f}" for k in FIELDS))
    if len(results) > 1:
        print("mean | " + " | ".join(
            f"{statistics.mean(r.get(k, float('nan')) for r in results.values()):.4f}" for k in FIELDS))


if __name__ == "__main__":
    main()

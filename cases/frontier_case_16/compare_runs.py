"""Compare two configs (or two sets of overrides) class by class over a few seeds.

    python compare_runs.py --a "--set model.kind=bag" --b "" [--seeds 0,1,2]
"""

import argparse
import shlex

from config import load_config
from data import ACTIVITIES
from train import run


def overrides(spec):
    words, out, config = shlex.split(spec), [], "configs/home.toml"
    for i, word in enumerate(words):
        if word == "--set":
            out.append(words[i + 1])
        elif word == "--config":
            config = words[i + 1]
    return config, out


def mean_reports(spec, seeds):
    config, sets = overrides(spec)
    reports = [run(load_config(config, sets + [f"train.seed={s}"]), verbose=False)["report"] for s in seeds]
    out = {name: sum(r["classes"][name]["f1"] for r in reports) / len(reports) for name in ACTIVITIES}
    out["accuracy"] = sum(r["accuracy"] for r in reports) / len(reports)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--a", default="")
    parser.add_argument("--b", default="")
    parser.add_argument("--seeds", default="0,1,2")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    a, b = mean_reports(args.a, seeds), mean_reports(args.b, seeds)
    print(f"{'':14s} {'A':>7s} {'B':>7s} {'B - A':>7s}   (F1, mean over seeds {args.seeds})")
    for key in list(ACTIVITIES) + ["accuracy"]:
        print(f"  {key:12s} {a[key]:7.3f} {b[key]:7.3f} {b[key] - a[key]:+7.3f}")


if __name__ == "__main__":
    main()

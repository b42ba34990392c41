"""Runs one experiment over several values of its settings and tabulates the final errors.

Usage: python sweep.py --config configs/x.toml --vary problem.L=1e-3,2e-4 [--vary ...] [--set ...]

Every combination of the --vary values is trained with the rest of the configuration unchanged
(same seed, same steps), so one can see whether the settings carry over, e.g. to a thinner plate.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import sys
import time

import torch

from config import ConfigError, load_config
from train import train


def parse_vary(text: str) -> tuple[str, list[str]]:
    key, sep, values = text.partition("=")
    if not sep or "." not in key:
        raise SystemExit(f"--vary {text!r}: expected section.key=v1,v2,...")
    return key.strip(), [v.strip() for v in values.split(",") if v.strip()]


def combinations(varies: list[tuple[str, list[str]]]):
    keys = [k for k, _ in varies]
    for values in itertools.product(*(vals for _, vals in varies)):
        yield [f"{k}={v}" for k, v in zip(keys, values)]


def run_one(config_path, overrides) -> dict:
    cfg = load_config(config_path, overrides)
    with contextlib.redirect_stdout(io.StringIO()):
        _, history = train(cfg)
    last = history[-1]
    return {"face_err": max(last["face_err"]), "rel_l2": last["rel_l2"], "loss": last["loss"]}


def main(argv):
    torch.set_num_threads(1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None)
    parser.add_argument("--vary", action="append", default=[], metavar="SECTION.KEY=V1,V2")
    parser.add_argument("--csv", default=None, help="also write the table to this CSV file")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE")
    args = parser.parse_args(argv)
    varies = [parse_vary(v) for v in args.vary]
    t0 = time.time()
    rows = []
    print(f"{'setting':40s} | {'max face err':>12s} | {'rel L2':>9s} | {'final loss':>10s}")
    for combo in combinations(varies):
        try:
            result = run_one(args.config, args.overrides + combo)
        except ConfigError as exc:
            raise SystemExit(f"config error: {exc}")
        label = ", ".join(combo) or "(as configured)"
        rows.append({"setting": label, **result})
        print(f"{label:40s} | {result['face_err']:12.3f} | {result['rel_l2']:9.2e} | {result['loss']:10.3e}", flush=True)
    if args.csv:
        import csv

        with open(args.csv, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=["setting", "face_err", "rel_l2", "loss"])
            writer.writeheader()
            writer.writerows(rows)
    print(f"done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])

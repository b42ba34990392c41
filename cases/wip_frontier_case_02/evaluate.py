"""Re-score a trained checkpoint on the held-out cows, per farm.

    python train.py --set train.out_dir=runs/s0
    python evaluate.py runs/s0/collarnet_2026.npz [--config configs/herd26.toml] [--calibrate] [--report r.md]
"""

import argparse

import numpy as np
import torch

from calibration import calibrate
from config import load_arch, load_config
from data import load_exports, split_by_cow
from dataset import Standardizer, model_inputs
from metrics import evaluate, macro_f1
from models import build_collarnet
from report import write_report
from sampling import build_eval_loader


def load_trained(path, cfg):
    with np.load(path) as arrays:
        classes = tuple(str(c) for c in arrays["classes"])
        state = {k: torch.from_numpy(arrays[k]) for k in arrays.files if k != "classes"}
    model = build_collarnet(state["body.0.weight"].shape[1], classes, load_arch(cfg.model.arch))
    model.load_state_dict(state)
    return model.eval()


def per_farm(model, table, standardizer):
    rows = []
    for farm in sorted(set(table.farms)):
        part = table.take(np.flatnonzero(table.farms == farm))
        res = evaluate(model, build_eval_loader(part, standardizer), len(table.classes))
        rows.append((farm, len(part), res["acc"], res["bal_acc"], macro_f1(res["confusion"])))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--config", default="configs/herd26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--calibrate", action="store_true", help="fit a temperature and the alert threshold")
    parser.add_argument("--report", default="", help="write a markdown report here")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.set)
    train_t, val_t = split_by_cow(load_exports(cfg.data.export_dir), cfg.data.val_fraction, cfg.data.split_seed)
    standardizer = Standardizer.fit(model_inputs(train_t)[0])
    model = load_trained(args.checkpoint, cfg)
    print(f"{'farm':14s} {'windows':>7s} {'acc':>6s} {'bal acc':>7s} {'macro F1':>8s}")
    for farm, n, acc, bal, f1 in per_farm(model, val_t, standardizer):
        print(f"{farm:14s} {n:7d} {acc:6.3f} {bal:7.3f} {f1:8.3f}")
    loader = build_eval_loader(val_t, standardizer)
    extra = {}
    if args.calibrate:
        extra = calibrate(model, loader, model.classes.index(cfg.train.alert_state))
        print("calibration: " + " | ".join(f"{k} {v:.4f}" for k, v in extra.items()))
    if args.report:
        res = evaluate(model, loader, len(model.classes))
        write_report(args.report, f"CollarNet on held-out cows ({args.checkpoint})", res["confusion"],
                     model.classes, {"val accuracy": res["acc"], **extra})
        print(f"wrote {args.report}")


if __name__ == "__main__":
    main()

"""Re-score a fine-tuned checkpoint on the held-out wagons, per site.

    python train.py --set train.out_dir=runs/s0
    python evaluate.py runs/s0/wheelnet_2026.npz [--config configs/fleet26.toml]
"""

import argparse

import numpy as np
import torch

from config import load_config
from data import load_exports, split_by_wagon
from dataset import Standardizer
from calibration import calibrate
from metrics import evaluate, macro_f1
from report import write_report
from models import WheelNet, load_pretrained
from sampling import build_eval_loader


def load_finetuned(path, cfg):
    with np.load(path) as arrays:
        classes = tuple(str(c) for c in arrays["classes"])
        state = {k: torch.from_numpy(arrays[k]) for k in arrays.files if k != "classes"}
    m = cfg.model
    model = WheelNet(2 * state["backbone.embed.w_read"].shape[1], classes, m.hidden, m.width, m.dropout, m.init_std)
    model.load_state_dict(state)
    return model.eval()


def per_site(model, table, standardizer):
    rows = []
    for site in sorted(set(table.sites)):
        part = table.take(np.flatnonzero(table.sites == site))
        res = evaluate(model, build_eval_loader(part, standardizer), len(table.classes))
        rows.append((site, len(part), res["acc"], res["bal_acc"], macro_f1(res["confusion"])))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--config", default="configs/fleet26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--calibrate", action="store_true", help="fit a temperature and the alarm threshold")
    parser.add_argument("--report", default="", help="write a markdown report here")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.set)
    train_t, val_t = split_by_wagon(load_exports(cfg.data.export_dir), cfg.data.val_fraction, cfg.data.split_seed)
    _, (mean, std) = load_pretrained(cfg.model.pretrained)
    model = load_finetuned(args.checkpoint, cfg)
    print(f"{'site':14s} {'passes':>7s} {'acc':>6s} {'bal acc':>7s} {'macro F1':>8s}")
    standardizer = Standardizer(mean, std)
    for site, n, acc, bal, f1 in per_site(model, val_t, standardizer):
        print(f"{site:14s} {n:7d} {acc:6.3f} {bal:7.3f} {f1:8.3f}")
    loader = build_eval_loader(val_t, standardizer)
    extra = {}
    if args.calibrate:
        extra = calibrate(model, loader, model.classes.index(cfg.train.alarm_state))
        print("calibration: " + " | ".join(f"{k} {v:.4f}" for k, v in extra.items()))
    if args.report:
        res = evaluate(model, loader, len(model.classes))
        write_report(args.report, f"WheelNet on held-out wagons ({args.checkpoint})", res["confusion"],
                     model.classes, {"balanced accuracy": res["bal_acc"], **extra})
        print(f"wrote {args.report}")


if __name__ == "__main__":
    main()

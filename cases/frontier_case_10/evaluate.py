"""Re-score a trained PickNet on the validation records, per station and per class.

    python train.py --set train.out_dir=runs/s0
    python evaluate.py runs/s0/picknet.pt [--config configs/ridge26.toml] [--report runs/s0/report.md]
"""

import argparse

import numpy as np
import torch
from torch.utils.data import DataLoader, Subset

from calibration import fit_temperature
from catalog import load_exports
from config import load_config
from metrics import evaluate, precisions, recalls
from model import PickNet
from report import write_report
from train import build_datasets


def load_model(path, n_inputs, classes, cfg):
    m = cfg.model
    model = PickNet(n_inputs, classes, m.hidden, m.depth, m.dropout)
    model.load_state_dict(torch.load(path, map_location="cpu"))
    return model.eval()


def station_of(subset):
    """The station of every record of a split, in the split's order."""
    base, idx = subset.dataset, np.asarray(subset.indices)
    return np.asarray(base.stations)[idx]


def per_station(model, subset, n_classes):
    stations = station_of(subset)
    rows = []
    for station in sorted(set(stations)):
        part = Subset(subset, np.flatnonzero(stations == station).tolist())
        res = evaluate(model, DataLoader(part, batch_size=512), n_classes)
        rows.append((station, len(part), res["acc"], res["bal_acc"]))
    return rows


def confusion_lines(conf, classes):
    width = max(len(c) for c in classes)
    head = " " * (width + 1) + " ".join(f"{c[:6]:>6s}" for c in classes)
    lines = [head]
    for c, row in zip(classes, conf):
        lines.append(f"{c:{width}s} " + " ".join(f"{v:6d}" for v in row))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--config", default="configs/ridge26.toml")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--report", default="", help="write a markdown report here")
    parser.add_argument("--temperature", action="store_true", help="fit a softmax temperature on validation")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.set)
    table = load_exports(cfg.data.export_dir)
    _, val_set = build_datasets(table, cfg)
    model = load_model(args.checkpoint, val_set[0][0].numel(), table.classes, cfg)
    loader = DataLoader(val_set, batch_size=512)
    res = evaluate(model, loader, len(table.classes))
    print(f"validation: {len(val_set)} records | acc {res['acc']:.4f} | balanced acc {res['bal_acc']:.4f} "
          f"| loss {res['loss']:.4f}")
    print(f"{'station':8s} {'records':>7s} {'acc':>6s} {'bal acc':>7s}")
    for station, n, acc, bal in per_station(model, val_set, len(table.classes)):
        print(f"{station:8s} {n:7d} {acc:6.3f} {bal:7.3f}")
    for line in confusion_lines(res["confusion"], table.classes):
        print(line)
    extra = {}
    if args.temperature:
        t, before, after = fit_temperature(model, loader)
        extra = {"temperature": t, "loss before": before, "loss after": after}
        print(f"temperature {t:.3f}: val loss {before:.4f} -> {after:.4f}")
    if args.report:
        scores = {"accuracy": res["acc"], "balanced accuracy": res["bal_acc"], **extra}
        per_class = {c: (r, p) for c, r, p in zip(table.classes, recalls(res["confusion"]),
                                                  precisions(res["confusion"]))}
        write_report(args.report, f"PickNet on validation ({args.checkpoint})", res["confusion"],
                     table.classes, scores, per_class)
        print(f"wrote {args.report}")


if __name__ == "__main__":
    main()

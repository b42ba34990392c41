"""Alert levels for the duty analyst from a day of proposed labels: the observatory's rules of thumb on
the rates of tremor, rockfall and long-period events in the last 24 hours.

    python alerts.py runs/s0/picknet.pt --day 120
"""

import argparse
from dataclasses import dataclass

import numpy as np
import torch

from catalog import load_exports
from config import load_config
from dataset import RecordDataset
from evaluate import load_model
from response import StationResponse

LEVELS = ("normal", "advisory", "watch")


@dataclass(frozen=True)
class Thresholds:
    advisory_lp_per_day: int = 25
    advisory_tremor_per_day: int = 20
    watch_rockfall_per_day: int = 12
    watch_tremor_share: float = 0.5


def level_for(counts, classes, th=Thresholds()):
    """The alert level for one day's label counts ({class: n})."""
    n = max(sum(counts.values()), 1)
    if counts.get("rockfall", 0) >= th.watch_rockfall_per_day or counts.get("tremor", 0) / n >= th.watch_tremor_share:
        return "watch"
    if counts.get("long_period", 0) >= th.advisory_lp_per_day or counts.get("tremor", 0) >= th.advisory_tremor_per_day:
        return "advisory"
    return "normal"


def day_counts(labels, t_hours, classes, day):
    mine = (t_hours >= day * 24) & (t_hours < (day + 1) * 24)
    return {c: int((labels[mine] == k).sum()) for k, c in enumerate(classes)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--config", default="configs/ridge26.toml")
    parser.add_argument("--day", type=int, default=120)
    args = parser.parse_args(argv)
    cfg = load_config(args.config)
    table = load_exports(cfg.data.export_dir)
    ds = RecordDataset(table, StationResponse(table, cfg.data.stations))
    model = load_model(args.checkpoint, ds.x.shape[1], table.classes, cfg)
    with torch.no_grad():
        pred = model(ds.x).argmax(1).numpy()
    t = table.t_hours
    proposed = day_counts(pred, t, table.classes, args.day)
    confirmed = day_counts(ds.y.numpy(), t, table.classes, args.day)
    print(f"day {args.day}: proposed {proposed} -> {level_for(proposed, table.classes)}")
    print(f"day {args.day}: confirmed {confirmed} -> {level_for(confirmed, table.classes)}")


if __name__ == "__main__":
    main()

"""Re-score a saved run on the held-out weeks: `python evaluate.py runs/x [--by-hour STATION]`."""

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from config import Config, _apply
from features import build_table
from data import load_stations, split_holdout
from metrics import format_report, station_report
from models import build_model


def load_run(out_dir):
    out = Path(out_dir)
    cfg = Config()
    _apply(cfg, json.loads((out / "config.json").read_text()), "")
    scalers = json.loads((out / "scalers.json").read_text())
    return cfg, scalers, torch.load(out / "model.pt")


def predict(out_dir):
    cfg, scalers, state = load_run(out_dir)
    stations = load_stations(cfg.data.data_dir, cfg.data.stations or None)
    names = [st.name for st in stations]
    _, held = split_holdout(stations, cfg.data.holdout_weeks)
    table = build_table(held, names, cfg.features.harmonics, cfg.features.weather)
    model = build_model(cfg.model, table.x.shape[1], len(names))
    model.load_state_dict(state)
    model.eval()
    mean, std = np.array(scalers["input"]["mean"]), np.array(scalers["input"]["std"])
    x = torch.from_numpy(((table.x - mean) / std).astype(np.float32))
    with torch.no_grad():
        z = model(x, torch.from_numpy(table.station)).numpy()
    return table, np.clip(z * scalers["target"]["scale"], 0.0, None)


def by_hour(table, pred, station):
    i = table.names.index(station)
    m = (table.station == i) & (table.weekday < 5)
    print(f"{station}, weekdays: hour  actual  forecast")
    for h in range(24):
        r = m & (table.hour == h)
        print(f"  {h:02d}  {table.y[r].mean():7.2f}  {pred[r].mean():8.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("--by-hour", default="")
    args = ap.parse_args()
    table, pred = predict(args.run_dir)
    print(format_report(station_report(table, pred)))
    if args.by_hour:
        by_hour(table, pred, args.by_hour)


if __name__ == "__main__":
    main()

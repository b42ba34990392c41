"""Generates cases/case_06/data/*.csv (kept here for reproducibility; not part of the workspace)."""

import csv
import math
import sys
from pathlib import Path

import torch

COLUMNS = ("outdoor_temp_c", "humidity_pct", "solar_wm2", "occupancy", "hour", "setpoint_c", "lag_kwh")
BUILDINGS = ("bldg-A", "bldg-B", "bldg-C", "bldg-D", "bldg-E", "bldg-F")
ROWS = (420, 384, 450, 400, 372, 436)


def make_building(k, n_rows):
    g = torch.Generator().manual_seed(7000 + k)
    size = 0.5 + 2.0 * torch.rand(1, generator=g).item()
    hour = torch.randint(0, 24, (n_rows,), generator=g).float()
    temp = 10.0 + 8.0 * torch.randn(n_rows, generator=g)
    humidity = (60.0 + 15.0 * torch.randn(n_rows, generator=g)).clamp(15.0, 100.0)
    daylight = torch.sin(math.pi * (hour - 6.0) / 12.0).clamp(min=0.0)
    solar = 700.0 * daylight * torch.rand(n_rows, generator=g)
    working = ((hour >= 8) & (hour <= 18)).float()
    occupancy = torch.poisson(size * (5.0 + 120.0 * working) * torch.ones(n_rows), generator=g)
    setpoint = 19.0 + 2.0 * working + 0.5 * torch.randint(0, 3, (n_rows,), generator=g).float()
    hvac = 0.8 * (setpoint - temp).abs() + 0.02 * (humidity - 50.0).clamp(min=0.0)
    kwh = size * (20.0 + hvac + 0.15 * occupancy - 0.004 * solar) + 2.0 * torch.randn(n_rows, generator=g)
    lag = (kwh + 3.0 * torch.randn(n_rows, generator=g)).clamp(min=0.0)
    if BUILDINGS[k] == "bldg-D":  # no humidity sensor: the exporter writes 0 for a missing channel
        humidity = torch.zeros(n_rows)
    return torch.stack([temp, humidity, solar, occupancy, hour, setpoint, lag], 1), kwh


out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for k, name in enumerate(BUILDINGS):
    x, y = make_building(k, ROWS[k])
    with open(out / f"{name}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["timestamp_idx", *COLUMNS, "next_kwh"])
        for i in range(len(y)):
            row = x[i].tolist()
            fmt = [f"{row[0]:.1f}", f"{row[1]:.1f}", f"{row[2]:.1f}", f"{int(row[3])}", f"{int(row[4])}",
                   f"{row[5]:.1f}", f"{row[6]:.2f}"]
            w.writerow([i, *fmt, f"{y[i].item():.2f}"])

"""Hourly building-energy shards: one CSV per building, exported from the BMS.

Raw columns are listed in COLUMNS; the target is the next hour's consumption in kWh.
"""

import csv
from pathlib import Path

import torch

COLUMNS = ("outdoor_temp_c", "humidity_pct", "solar_wm2", "occupancy", "hour", "setpoint_c", "lag_kwh")
TARGET = "next_kwh"


def load_shards(folder="data"):
    shards = []
    for path in sorted(Path(folder).glob("bldg-*.csv")):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        x = torch.tensor([[float(r[c]) for c in COLUMNS] for r in rows], dtype=torch.float32)
        y = torch.tensor([float(r[TARGET]) for r in rows], dtype=torch.float32)
        shards.append({"name": path.stem, "x": x, "y": y})
    return shards


def check_shards(shards):
    """Sanity checks on the export: finite values, non-negative counts, hours in range."""
    for shard in shards:
        x, y = shard["x"], shard["y"]
        if not (torch.isfinite(x).all() and torch.isfinite(y).all()):
            raise ValueError(f"{shard['name']}: non-finite values in the export")
        for name in ("solar_wm2", "occupancy", "lag_kwh"):
            if (x[:, COLUMNS.index(name)] < 0).any():
                raise ValueError(f"{shard['name']}: negative {name}")
        hours = x[:, COLUMNS.index("hour")]
        if hours.min() < 0 or hours.max() > 23:
            raise ValueError(f"{shard['name']}: hour out of range")


def iterate_batches(shards, batch_size, seed, epochs):
    """Stream shard by shard (as the real loader reads files), shuffling shards and rows each epoch."""
    for epoch in range(epochs):
        g = torch.Generator().manual_seed(seed * 100 + epoch)
        for s in torch.randperm(len(shards), generator=g).tolist():
            shard = shards[s]
            perm = torch.randperm(len(shard["x"]), generator=g)
            for i in range(len(perm) // batch_size):
                idx = perm[i * batch_size:(i + 1) * batch_size]
                yield epoch, shard["name"], i, shard["x"][idx], shard["y"][idx]

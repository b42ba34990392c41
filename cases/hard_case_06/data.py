"""Hourly building-energy shards: one CSV per building, exported from the BMS.

Raw columns are listed in COLUMNS; the target is the next hour's consumption in kWh.
"""

import csv
from pathlib import Path

import torch

COLUMNS = ("outdoor_temp_c", "humidity_pct", "solar_wm2", "occupancy", "hour", "setpoint_c", "lag_kwh")
TARGET = "next_kwh"


def load_shards(folder="data", pattern="bldg-*.csv"):
    """[{name, x (rows, len(COLUMNS)), y (rows,)}] in file-name order."""
    shards = []
    for path in sorted(Path(folder).glob(pattern)):
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        missing = [c for c in (*COLUMNS, TARGET) if rows and c not in rows[0]]
        if missing:
            raise ValueError(f"{path}: missing columns {missing}")
        x = torch.tensor([[float(r[c]) for c in COLUMNS] for r in rows], dtype=torch.float32)
        y = torch.tensor([float(r[TARGET]) for r in rows], dtype=torch.float32)
        shards.append({"name": path.stem, "x": x, "y": y})
    if not shards:
        raise FileNotFoundError(f"no {pattern} in {folder}")
    return shards


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


def batches_per_epoch(shards, batch_size):
    return sum(len(s["x"]) // batch_size for s in shards)


def column(shard, name):
    return shard["x"][:, COLUMNS.index(name)]

"""Hourly charging-site exports: one CSV per site, written by the charge-point backend.

Each row is one hour of one site; the target is the energy the site delivers in the next hour (kWh).
The last `holdout_days` of every site are kept for evaluation.
"""

import csv
from pathlib import Path

import torch

COLUMNS = ("hour", "weekday", "outdoor_temp_c", "price_ct_kwh", "plugs_online", "lag_kwh", "lag24_kwh")
TARGET = "next_kwh"


def load_sites(folder="data", pattern="*.csv", names=()):
    """[{name, x (rows, len(COLUMNS)), y (rows,)}] in file-name order (only `names` when given)."""
    sites = []
    for path in sorted(Path(folder).glob(pattern)):
        if names and path.stem not in names:
            continue
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        missing = [c for c in (*COLUMNS, TARGET) if rows and c not in rows[0]]
        if missing:
            raise ValueError(f"{path}: missing columns {missing}")
        x = torch.tensor([[float(r[c]) for c in COLUMNS] for r in rows], dtype=torch.float32)
        y = torch.tensor([float(r[TARGET]) for r in rows], dtype=torch.float32)
        sites.append({"name": path.stem, "x": x, "y": y})
    if not sites:
        raise FileNotFoundError(f"no {pattern} in {folder}")
    unknown = sorted(set(names) - {s["name"] for s in sites})
    if unknown:
        raise FileNotFoundError(f"no export for site(s) {', '.join(unknown)} in {folder}")
    return sites


def split_holdout(sites, holdout_days):
    """(train, holdout): the last `holdout_days` x 24 hours of every site are held out, in time order."""
    train, holdout = [], []
    for site in sites:
        cut = len(site["y"]) - 24 * holdout_days
        if cut <= 0:
            raise ValueError(f"{site['name']}: {len(site['y'])} rows cannot hold out {holdout_days} days")
        train.append({"name": site["name"], "x": site["x"][:cut], "y": site["y"][:cut]})
        holdout.append({"name": site["name"], "x": site["x"][cut:], "y": site["y"][cut:]})
    return train, holdout


def iterate_batches(sites, batch_size, seed, epochs):
    """Stream site by site (as the backend exports them), shuffling the sites and the rows each epoch."""
    for epoch in range(epochs):
        g = torch.Generator().manual_seed(seed * 1000 + epoch)
        for s in torch.randperm(len(sites), generator=g).tolist():
            site = sites[s]
            perm = torch.randperm(len(site["y"]), generator=g)
            for i in range(len(perm) // batch_size):
                idx = perm[i * batch_size:(i + 1) * batch_size]
                yield epoch, site["name"], i, site["x"][idx], site["y"][idx]


def batches_per_epoch(sites, batch_size):
    return sum(len(s["y"]) // batch_size for s in sites)


def column(site, name):
    return site["x"][:, COLUMNS.index(name)]

"""The exit-walkway passes: each window's last pass, as the collar's positioning tag logged it (1 Hz fixes)."""

import csv
import math
from pathlib import Path

import torch

M_PER_DEG = 111_195.0  # metres per degree of latitude (mean Earth radius)
FIX_S = 1.0  # seconds between fixes


def read_tracks(path):
    """{window_id: [(lat, lon), ...]} in fix order."""
    tracks = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            tracks.setdefault(r["window_id"], []).append((int(r["fix"]), float(r["lat"]), float(r["lon"])))
    return {w: [(lat, lon) for _, lat, lon in sorted(fixes)] for w, fixes in tracks.items()}


def walk_pace(tracks, window_ids):
    """Walking pace (m/s) per window: the median of the distances between consecutive fixes (a stray fix
    moves two distances, not the median), on a local flat-earth projection. Windows without a pass get NaN."""
    have = [w for w in window_ids if w in tracks]
    out = dict.fromkeys(window_ids, math.nan)
    if not have:
        return [out[w] for w in window_ids]
    n = min(len(tracks[w]) for w in have)
    rows = [tracks[w][:n] for w in have]
    pos = torch.tensor(rows)  # (windows, fixes, 2): lat, lon
    lat0 = pos[:, :1, 0]
    scale = torch.stack([torch.full_like(lat0, M_PER_DEG), M_PER_DEG * torch.cos(torch.deg2rad(lat0))], dim=-1)
    step = (pos[:, 1:] - pos[:, :-1]) * scale
    pace = step.norm(dim=-1).median(dim=1).values / FIX_S
    out.update(zip(have, pace.tolist()))
    return [out[w] for w in window_ids]


def load_walkway(walkway_dir, farm):
    path = Path(walkway_dir) / f"{farm}.csv"
    return read_tracks(path) if path.exists() else {}

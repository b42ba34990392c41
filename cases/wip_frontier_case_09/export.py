"""The inspection exports: the upload manifest and the per-run trace files the tools write."""

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

TAGS = ("wall", "weld", "dent", "pitting", "metal_loss")
CHANNELS = ("axial", "radial", "circ")


@dataclass
class Segment:
    seg_id: str
    run: str
    tool: str
    tool_temp_c: float
    counts: np.ndarray      # (frames, 3) raw tool counts, as recorded
    reference: np.ndarray   # (3,) the run's lift-off counts per channel (tool in the launcher)
    chain_mm: np.ndarray    # (frames,) chainage of each frame
    tags: np.ndarray        # (frames,) analysts' tag per frame


def read_manifest(data_dir):
    """The manifest's rows, as dicts with typed fields."""
    with open(Path(data_dir) / "manifest.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["frames"] = int(r["frames"])
        r["start_km"] = float(r["start_km"])
        r["tool_temp_c"] = float(r["tool_temp_c"])
    return rows


def _open_run(path):
    with np.load(path) as z:
        ids = [str(s) for s in z["seg_ids"]]
        ends = np.cumsum(z["lengths"])
        counts = np.split(z["counts"], ends[:-1])
        chain_mm = np.split(z["chain_mm"], ends[:-1])
        tags = np.split(z["tags"], ends[:-1])
        reference = z["reference"]
    return dict(zip(ids, zip(counts, chain_mm, tags))), reference


def load_segments(data_dir, manifest):
    """Every segment the manifest lists, read from its run's file (each run file is opened once).

    Segments come back run by run, each run's segments in chainage order, which is also the order the
    tools recorded them in.
    """
    by_run = {}
    for r in manifest:
        by_run.setdefault(r["run"], []).append(r)
    segments = []
    for run in sorted(by_run):
        stored, reference = _open_run(Path(data_dir) / "traces" / f"{run}.npz")
        for r in sorted(by_run[run], key=lambda r: r["start_km"]):
            counts, chain_mm, tags = stored[r["segment"]]
            if len(counts) != r["frames"]:
                raise ValueError(f"{r['segment']}: {len(counts)} frames stored, manifest says {r['frames']}")
            segments.append(Segment(r["segment"], run, r["tool"], r["tool_temp_c"], counts, reference,
                                    chain_mm, tags))
    return segments


def split_runs(segments, val_runs):
    """Indices of the training and validation segments; whole runs are held out."""
    held = {r.strip() for r in val_runs.split(",") if r.strip()}
    train = [i for i, s in enumerate(segments) if s.run not in held]
    val = [i for i, s in enumerate(segments) if s.run in held]
    return train, val

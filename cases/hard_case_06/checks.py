"""Sanity checks on the export before training (hard errors) plus a report of odd rows (warnings)."""

import torch

from data import COLUMNS, column


def check_shards(shards):
    """Finite values, non-negative counts, hours in range: anything else is a broken export."""
    for shard in shards:
        x, y = shard["x"], shard["y"]
        if not (torch.isfinite(x).all() and torch.isfinite(y).all()):
            raise ValueError(f"{shard['name']}: non-finite values in the export")
        for name in ("solar_wm2", "occupancy", "lag_kwh"):
            if (column(shard, name) < 0).any():
                raise ValueError(f"{shard['name']}: negative {name}")
        hours = column(shard, "hour")
        if hours.min() < 0 or hours.max() > 23:
            raise ValueError(f"{shard['name']}: hour out of range")
        if (y < 0).any():
            raise ValueError(f"{shard['name']}: negative target")
        check_ranges(shard)


# physically plausible ranges of the raw BMS columns (inclusive)
RANGES = {"outdoor_temp_c": (-40.0, 50.0), "humidity_pct": (0.0, 100.0), "setpoint_c": (10.0, 30.0),
          "solar_wm2": (0.0, 1400.0)}


def check_ranges(shard):
    """A value outside its column's plausible range is a unit or export error, not weather."""
    for name, (lo, hi) in RANGES.items():
        v = column(shard, name)
        bad = ((v < lo) | (v > hi)).nonzero().flatten()
        if len(bad):
            row = bad[0].item()
            raise ValueError(f"{shard['name']}: {name} = {v[row].item():g} at row {row} is outside [{lo:g}, {hi:g}] "
                             f"({len(bad)} rows)")


def load_jumps(shard, factor):
    """Rows whose next-hour load differs from the current one by more than `factor` robust sigmas."""
    step = shard["y"] - column(shard, "lag_kwh")
    median = step.median()
    mad = (step - median).abs().median().clamp_min(1e-6)
    return ((step - median).abs() > factor * 1.4826 * mad).nonzero().flatten()


def report_outliers(shards, factor):
    """One warning line per building with unusual hour-to-hour load jumps (kept: they are real)."""
    lines = []
    for shard in shards:
        rows = load_jumps(shard, factor)
        if len(rows):
            lines.append(f"warning: {shard['name']}: {len(rows)} rows with a load jump above {factor:g} sigma "
                         f"(max {(shard['y'] - column(shard, 'lag_kwh')).abs().max().item():.1f} kWh)")
    return lines


def summary(shards):
    """Per-building row counts and load ranges, for the run header."""
    out = []
    for shard in shards:
        y = shard["y"]
        out.append(f"{shard['name']}: {len(y)} rows, load {y.min().item():.1f}-{y.max().item():.1f} kWh")
    return out


__all__ = ["COLUMNS", "check_shards", "report_outliers", "summary"]

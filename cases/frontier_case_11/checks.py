"""Sanity checks on the export before training (hard errors) plus a report of odd sites (warnings)."""

import torch

from data import column


def check_sites(sites):
    """Finite values, non-negative energies, valid calendar fields: anything else is a broken export."""
    for site in sites:
        x, y = site["x"], site["y"]
        if not (torch.isfinite(x).all() and torch.isfinite(y).all()):
            raise ValueError(f"{site['name']}: non-finite values in the export")
        for name in ("lag_kwh", "lag24_kwh", "plugs_online"):
            if (column(site, name) < 0).any():
                raise ValueError(f"{site['name']}: negative {name}")
        if (y < 0).any():
            raise ValueError(f"{site['name']}: negative target")
        for name, top in (("hour", 23), ("weekday", 6)):
            v = column(site, name)
            if v.min() < 0 or v.max() > top or (v != v.round()).any():
                raise ValueError(f"{site['name']}: {name} outside 0..{top}")
        check_lags(site)


def check_lags(site):
    """lag_kwh of row t+1 is next_kwh of row t: the export is hourly and in time order."""
    lag_next = column(site, "lag_kwh")[1:]
    if not torch.allclose(lag_next, site["y"][:-1], atol=0.011):
        row = (lag_next - site["y"][:-1]).abs().argmax().item()
        raise ValueError(f"{site['name']}: rows out of order or missing near row {row}")


def longest_zero_run(y):
    best = run = 0
    for v in (y == 0).tolist():
        run = run + 1 if v else 0
        best = max(best, run)
    return best


def report_zero_readings(sites, warn_share):
    """One warning per site where a large share of hours read exactly zero (the meter may be down)."""
    lines = []
    for site in sites:
        zero = (site["y"] == 0).float().mean().item()
        if zero > warn_share:
            lines.append(f"warning: {site['name']}: {zero:.0%} of hours read 0.00 kWh (longest run "
                         f"{longest_zero_run(site['y'])} h): meter offline?")
    return lines


def summary(sites):
    """Per-site row counts and energy ranges, for the run header."""
    return [f"{s['name']}: {len(s['y'])} rows, {s['y'].min().item():.1f}-{s['y'].max().item():.1f} kWh, "
            f"mean {s['y'].mean().item():.1f}" for s in sites]

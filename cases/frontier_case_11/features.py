"""Feature encoding: raw export columns -> model inputs."""

import math

import torch

from data import COLUMNS

CYCLES = {"hour": 24.0, "weekday": 7.0}


def encode(raw, log_columns=("lag_kwh", "lag24_kwh"), cyclic=True):
    """Hours and weekdays as points on a circle, energies log-compressed, plus a weekend flag."""
    cols = []
    for j, name in enumerate(COLUMNS):
        v = raw[:, j]
        if name in CYCLES and cyclic:
            angle = 2.0 * math.pi * v / CYCLES[name]
            cols += [torch.sin(angle), torch.cos(angle)]
        elif name in log_columns:
            cols.append(torch.log1p(v))
        else:
            cols.append(v)
    weekday = raw[:, COLUMNS.index("weekday")]
    cols.append(torch.where(weekday >= 5, 1.0, 0.0))
    return torch.stack(cols, dim=1)


def feature_names(cyclic=True):
    names = []
    for name in COLUMNS:
        names += [f"{name}_sin", f"{name}_cos"] if name in CYCLES and cyclic else [name]
    return names + ["weekend"]


def n_features(cyclic=True):
    return len(feature_names(cyclic))


def output_scale(sites):
    """Mean hourly energy over every training row: the models predict in multiples of it."""
    return torch.cat([s["y"] for s in sites]).mean().item()

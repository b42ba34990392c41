"""Forecast metrics in kWh: MAE, WAPE, bias and the deviances."""

import torch

from losses import poisson_deviance, tweedie_deviance


def mae(pred, y):
    return (pred - y).abs().mean().item()


def wape(pred, y):
    """Weighted absolute percentage error: sum |error| / sum y (0 when the site delivered nothing)."""
    total = y.sum()
    return torch.where(total > 0, (pred - y).abs().sum() / total, torch.zeros(())).item()


def bias(pred, y):
    return (pred - y).mean().item()


@torch.no_grad()
def summarize(pred, y):
    return {"mae_kwh": mae(pred, y), "wape": wape(pred, y), "bias_kwh": bias(pred, y),
            "poisson_dev": poisson_deviance(pred, y).item(), "tweedie_dev": tweedie_deviance(pred, y).item(),
            "rows": len(y)}


def hour_profile(pred, y, hours):
    """Mean forecast and mean actual per hour of day (24 rows of (hour, forecast, actual))."""
    out = []
    for h in range(24):
        sel = hours == h
        if sel.any():
            out.append((h, pred[sel].mean().item(), y[sel].mean().item()))
    return out

"""Forecast metrics in kWh: MAE, RMSE, interval coverage and calibration of the z-scores."""

import math

import torch

Z90 = 1.6449  # two-sided 90% interval of a standard normal


def mae(pred, y):
    return (pred - y).abs().mean().item()


def rmse(pred, y):
    return math.sqrt(((pred - y) ** 2).mean().item())


def coverage(mu, var, y, z=Z90):
    """Share of targets inside mu +- z * sigma (0.90 for a calibrated 90% interval)."""
    sigma = var.sqrt()
    return ((y >= mu - z * sigma) & (y <= mu + z * sigma)).float().mean().item()


def z_spread(mu, var, y):
    """Standard deviation of the standardized residuals: 1.0 when the variance head is calibrated."""
    return ((y - mu) / var.sqrt()).std().item()


def summarize(mu_kwh, var_kwh, y):
    return {"mae_kwh": mae(mu_kwh, y), "rmse_kwh": rmse(mu_kwh, y), "coverage90": coverage(mu_kwh, var_kwh, y),
            "z_std": z_spread(mu_kwh, var_kwh, y), "residual_std_kwh": (mu_kwh - y).std().item()}

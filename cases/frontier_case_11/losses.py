"""Deviances for non-negative energies (kWh), averaged over the rows of a batch.

Hourly energy is non-negative and right-skewed, and its spread grows with its level, so the
forecasters are fit with the Poisson deviance (a log-link GLM's loss) rather than squared error.
The Tweedie deviance is reported by the evaluation only.
"""

import torch


def poisson_deviance(mu, y):
    """Mean unit Poisson deviance 2 * (y log(y / mu) - y + mu), with y log(y / mu) = 0 at y = 0."""
    ratio_term = torch.where(y > 0, y * torch.log(y / mu), torch.zeros_like(mu))
    return (2.0 * (ratio_term - y + mu)).mean()


def tweedie_deviance(mu, y, power=1.5):
    """Mean unit Tweedie deviance for 1 < power < 2 (compound Poisson-gamma)."""
    p = power
    first = torch.pow(y, 2 - p) / ((1 - p) * (2 - p))
    cross = y * torch.pow(mu, 1 - p) / (1 - p)
    last = torch.pow(mu, 2 - p) / (2 - p)
    return (2.0 * (first - cross + last)).mean()


def per_row_deviance(mu, y):
    """Unit Poisson deviance of every row (for the per-hour diagnostics of evaluate.py)."""
    ratio_term = torch.where(y > 0, y * torch.log(y / mu), torch.zeros_like(mu))
    return 2.0 * (ratio_term - y + mu)

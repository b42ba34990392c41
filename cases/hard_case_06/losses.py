"""Training losses on the scaled target."""

import math

import torch


def gaussian_nll(mu, target, var):
    """Mean negative log-likelihood of `target` under N(mu, var), without the constant term.

    Written out (rather than F.gaussian_nll_loss) so the per-row terms can be logged.
    """
    return 0.5 * (torch.log(var) + (target - mu) ** 2 / var).mean()


def gaussian_nll_full(mu, target, var):
    """The same with the 0.5 * log(2 pi) constant, for reporting a proper log-likelihood."""
    return gaussian_nll(mu, target, var) + 0.5 * math.log(2 * math.pi)


def per_row_terms(mu, target, var):
    """(log-variance term, squared-error term) per row, for diagnostics."""
    return 0.5 * torch.log(var), 0.5 * (target - mu) ** 2 / var

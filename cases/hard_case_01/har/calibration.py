"""Post-hoc temperature scaling on the validation split.

The serving app shows a confidence next to each prediction, so the exported model divides its
class scores by a temperature fitted to minimize validation NLL (Guo et al., 2017). The fit is
one scalar, so it cannot change which class wins, only how sure the model says it is.
"""

import torch
import torch.nn.functional as F


def nll_at(scores, y, temperature):
    return F.cross_entropy(scores / temperature, y).item()


def fit_temperature(scores, y, max_iter=50, bounds=(0.05, 20.0)):
    """The temperature in ``bounds`` that minimizes the validation NLL of ``scores / T``."""
    scores = scores.detach()
    log_t = torch.zeros((), requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.5, max_iter=max_iter, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(scores / log_t.exp(), y)
        loss.backward()
        return loss

    opt.step(closure)
    lo, hi = bounds
    return float(min(max(log_t.exp().item(), lo), hi))


def reliability(scores, y, temperature=1.0, n_bins=10):
    """(confidence, accuracy, count) per confidence bin, for the calibration report."""
    probs = torch.softmax(scores / temperature, dim=-1)
    confidence, pred = probs.max(dim=-1)
    correct = (pred == y).float()
    rows = []
    edges = torch.linspace(0, 1, n_bins + 1)
    for lo, hi in zip(edges[:-1], edges[1:]):
        in_bin = (confidence > lo) & (confidence <= hi)
        if in_bin.any():
            rows.append((confidence[in_bin].mean().item(), correct[in_bin].mean().item(), int(in_bin.sum())))
    return rows


def calibrate(scores, y):
    temperature = fit_temperature(scores, y)
    return {"temperature": temperature, "nll_before": nll_at(scores, y, 1.0),
            "nll_after": nll_at(scores, y, temperature)}

"""Post-hoc calibration of the state probabilities (temperature scaling) and the alert threshold.

The herd app sends an alert when the probability of the alert state exceeds a threshold; both the
temperature and the threshold are fitted on held-out cows, never on the training windows.
"""

import numpy as np
import torch
import torch.nn.functional as F


@torch.no_grad()
def collect_logits(model, loader):
    model.eval()
    logits, targets = [], []
    for x, y in loader:
        logits.append(model(x))
        targets.append(y)
    return torch.cat(logits), torch.cat(targets)


def fit_temperature(logits, targets, steps=200, lr=0.05):
    """The temperature T > 0 minimising the NLL of softmax(logits / T); optimised in log T."""
    log_t = torch.zeros((), requires_grad=True)
    opt = torch.optim.Adam([log_t], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), targets)
        loss.backward()
        opt.step()
    return float(log_t.detach().exp())


def expected_calibration_error(probs, targets, bins=10):
    conf, pred = probs.max(dim=1)
    correct = (pred == targets).float()
    edges = torch.linspace(0, 1, bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (conf > lo) & (conf <= hi)
        if inside.any():
            ece += inside.float().mean() * (conf[inside].mean() - correct[inside].mean()).abs()
    return float(ece)


def alert_threshold(probs, targets, state, min_recall=0.8):
    """The largest threshold on P(state) whose recall of `state` is still >= min_recall."""
    p = probs[:, state].numpy()
    positive = targets.numpy() == state
    if not positive.any():
        return 0.5
    best = 0.0
    for t in np.unique(np.round(p, 3))[::-1]:
        if (p[positive] >= t).mean() >= min_recall:
            best = float(t)
            break
    return best


def calibrate(model, loader, state, min_recall=0.8):
    logits, targets = collect_logits(model, loader)
    before = expected_calibration_error(F.softmax(logits, dim=1), targets)
    temperature = fit_temperature(logits, targets)
    probs = F.softmax(logits / temperature, dim=1)
    return {
        "temperature": temperature,
        "ece_before": before,
        "ece_after": expected_calibration_error(probs, targets),
        "alert_threshold": alert_threshold(probs, targets, state, min_recall),
    }

"""Post-hoc calibration of the classifier's scores: a single temperature fitted on held-out logits,
and the expected calibration error used to report it."""

import torch
import torch.nn.functional as F

from optim import Adam


def expected_calibration_error(logits, labels, n_bins=10):
    """Mean |accuracy - confidence| over equal-width confidence bins, weighted by bin size."""
    probs = logits.softmax(dim=1)
    conf, pred = probs.max(dim=1)
    correct = (pred == labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        inside = (conf > lo) & (conf <= hi)
        if inside.any():
            ece += inside.float().mean() * (correct[inside].mean() - conf[inside].mean()).abs()
    return ece.item()


def fit_temperature(logits, labels, steps=200, lr=0.05):
    """The temperature T > 0 minimising the cross-entropy of logits / T (optimised in log space)."""
    log_t = torch.zeros((), requires_grad=True)
    opt = Adam([log_t], lr=lr)
    logits = logits.detach()
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), labels)
        loss.backward()
        opt.step()
    return float(log_t.exp().item())


class TemperatureScaled(torch.nn.Module):
    """Wraps a classifier so its logits are divided by a fitted temperature (argmax unchanged)."""

    def __init__(self, model, temperature):
        super().__init__()
        self.model = model
        self.register_buffer("temperature", torch.tensor(float(temperature)))

    def forward(self, x):
        return self.model(x) / self.temperature

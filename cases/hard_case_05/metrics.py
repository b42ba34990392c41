"""Evaluation metrics over a split: cross-entropy, perplexity, bits per character, accuracy."""

import math

import torch
import torch.nn.functional as F

from dataset import eval_batches


@torch.no_grad()
def evaluate(model, x, y, batch_size=4096):
    """Mean metrics over every window of the split, in eval mode (restores the previous mode)."""
    was_training = model.training
    model.eval()
    total_loss, correct, n = 0.0, 0, 0
    for xb, yb in eval_batches(x, y, batch_size):
        logits = model(xb)
        total_loss += F.cross_entropy(logits, yb, reduction="sum").item()
        correct += (logits.argmax(-1) == yb).sum().item()
        n += len(yb)
    model.train(was_training)
    loss = total_loss / max(1, n)
    return {"loss": loss, "ppl": math.exp(loss), "bpc": loss / math.log(2), "acc": correct / max(1, n)}


@torch.no_grad()
def calibration_error(model, x, y, bins=10):
    """Expected calibration error of the top-1 prediction (used by the export report)."""
    was_training = model.training
    model.eval()
    probs = F.softmax(model(x), dim=-1)
    model.train(was_training)
    conf, pred = probs.max(-1)
    hit = (pred == y).float()
    ece = 0.0
    for lo in range(bins):
        mask = (conf > lo / bins) & (conf <= (lo + 1) / bins)
        if mask.any():
            ece += mask.float().mean().item() * abs(conf[mask].mean().item() - hit[mask].mean().item())
    return ece


class RunningMean:
    """Exponential moving average of the training loss for the console (bias-corrected)."""

    def __init__(self, beta=0.9):
        self.beta, self.value, self.n = beta, 0.0, 0

    def update(self, x):
        self.n += 1
        self.value = self.beta * self.value + (1 - self.beta) * x
        return self.value / (1 - self.beta ** self.n)

"""Language-model metrics over supervised (non-IGNORE) positions."""

import math

import torch
import torch.nn.functional as F

from chatlm.templates import IGNORE


def lm_loss(logits, y):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), ignore_index=IGNORE)


def token_accuracy(logits, y):
    mask = y != IGNORE
    if not mask.any():
        return float("nan")
    return (logits.argmax(dim=-1)[mask] == y[mask]).float().mean().item()


def perplexity(loss):
    return math.exp(min(loss, 50.0))


def stop_rate(logits, y, stop_id):
    """Of the supervised positions whose target is ``stop_id``, the share the model predicts."""
    mask = y == stop_id
    if not mask.any():
        return float("nan")
    return (logits.argmax(dim=-1)[mask] == stop_id).float().mean().item()


def mean_confidence(logits, y):
    mask = y != IGNORE
    probs = torch.softmax(logits[mask], dim=-1)
    return probs.max(dim=-1).values.mean().item() if mask.any() else float("nan")

import math

import torch
import torch.nn.functional as F


def accuracy(out, y):
    return (out.argmax(dim=-1) == y).float().mean().item()


def predictive_entropy(logits):
    """Mean entropy (nats) of the predicted class distribution; ln(C) means 'no idea'."""
    logp = F.log_softmax(logits, dim=-1)
    return -(logp.exp() * logp).sum(dim=-1).mean().item()


def max_entropy(n_classes):
    return math.log(n_classes)


@torch.no_grad()
def grad_norm(module):
    norms = [p.grad.norm() for p in module.parameters() if p.grad is not None]
    return torch.stack(norms).norm().item() if norms else 0.0

"""Evaluation of a model on a split, in eval mode and without gradients."""

import torch

from har.metrics import summarize


@torch.no_grad()
def predict(model, x, batch_size=512):
    """The model's output for every window of ``x``, computed in chunks, in eval mode."""
    was_training = model.training
    model.eval()
    try:
        return torch.cat([model(x[i:i + batch_size]) for i in range(0, len(x), batch_size)])
    finally:
        model.train(was_training)


def evaluate(model, x, y, n_classes):
    return summarize(predict(model, x), y, n_classes)


def per_class_accuracy(model, x, y, n_classes):
    pred = predict(model, x).argmax(dim=-1)
    out = []
    for c in range(n_classes):
        mask = y == c
        out.append((pred[mask] == c).float().mean().item() if mask.any() else float("nan"))
    return out

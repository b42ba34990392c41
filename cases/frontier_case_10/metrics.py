"""Confusion matrices and the scores the observatory reports."""

import numpy as np
import torch
import torch.nn.functional as F


@torch.no_grad()
def evaluate(model, loader, n_classes):
    was_training = model.training
    model.eval()
    conf = np.zeros((n_classes, n_classes), dtype=np.int64)
    loss, n = 0.0, 0
    for x, y in loader:
        logits = model(x)
        loss += float(F.cross_entropy(logits, y, reduction="sum"))
        n += len(y)
        np.add.at(conf, (y.numpy(), logits.argmax(1).numpy()), 1)
    model.train(was_training)
    return {"loss": loss / max(n, 1), "acc": float(np.trace(conf) / max(conf.sum(), 1)),
            "bal_acc": float(np.mean(recalls(conf))), "confusion": conf}


def recalls(conf):
    return np.diag(conf) / np.maximum(conf.sum(axis=1), 1)


def precisions(conf):
    return np.diag(conf) / np.maximum(conf.sum(axis=0), 1)

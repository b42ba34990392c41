"""Frame-level evaluation: a confusion matrix over the real (unpadded) frames and what derives from it."""

import numpy as np
import torch
import torch.nn.functional as F

from batching import frame_mask


@torch.no_grad()
def evaluate(model, loader, n_tags):
    model.eval()
    conf = np.zeros((n_tags, n_tags), dtype=np.int64)
    loss_sum, frames = 0.0, 0
    for x, y, lengths in loader:
        logits = model(x)
        keep = frame_mask(lengths, y.shape[1])
        lg, yt = logits[keep], y[keep]
        loss_sum += float(F.cross_entropy(lg, yt, reduction="sum"))
        frames += len(yt)
        np.add.at(conf, (yt.numpy(), lg.argmax(1).numpy()), 1)
    return {"loss": loss_sum / max(frames, 1), "confusion": conf, "acc": float(np.trace(conf) / conf.sum())}


def recalls(conf):
    return np.diag(conf) / np.maximum(conf.sum(1), 1)


def precisions(conf):
    return np.diag(conf) / np.maximum(conf.sum(0), 1)


def f1s(conf):
    r, p = recalls(conf), precisions(conf)
    return 2 * r * p / np.maximum(r + p, 1e-12)


def rare_recall(conf, rare):
    return float(np.mean(recalls(conf)[list(rare)]))

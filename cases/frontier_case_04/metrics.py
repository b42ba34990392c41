"""Next-syllable accuracy and loss, overall and by group."""

import numpy as np
import torch
import torch.nn.functional as F

from corpus import pad_batch

LENGTH_BINS = ((3, 6, "short"), (7, 14, "medium"), (15, 10**6, "long"))


@torch.no_grad()
def score_examples(model, examples, batch=256):
    """Per example: (number of syllable targets, number predicted right, summed loss). One example per row,
    batched by length so little is spent on padding."""
    model.eval()
    order = sorted(range(len(examples)), key=lambda i: len(examples[i].ids))
    rows = [None] * len(examples)
    for i in range(0, len(order), batch):
        chunk = order[i:i + batch]
        x, y, tm = pad_batch([examples[j] for j in chunk])
        x, y, tm = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(tm)
        logits = model(x, tm)
        loss = F.cross_entropy(logits.transpose(1, 2), y, ignore_index=-100, reduction="none")
        hit = (logits.argmax(-1) == y) & (y != -100)
        n = (y != -100).sum(1)
        for j, r in zip(chunk, zip(n.tolist(), hit.sum(1).tolist(), loss.sum(1).tolist())):
            rows[j] = r
    return np.asarray(rows, dtype=np.float64)


def summarize(rows, examples):
    n, hit, loss = rows[:, 0], rows[:, 1], rows[:, 2]
    out = {"acc": hit.sum() / n.sum(), "loss": loss.sum() / n.sum()}
    lengths = np.array([e.n_syllables for e in examples])
    for lo, hi, name in LENGTH_BINS:
        sel = (lengths >= lo) & (lengths <= hi)
        out[f"acc_{name}"] = hit[sel].sum() / max(1, n[sel].sum())
    cohorts = np.array([e.cohort for e in examples])
    for c in sorted(set(cohorts)):
        sel = cohorts == c
        out[f"acc_cohort_{c}"] = hit[sel].sum() / max(1, n[sel].sum())
    return out


@torch.no_grad()
def count_hits(logits, targets):
    """(targets predicted right, targets) in a batch of packed rows; padding (-100) is not a target. Train acc
    is counted on the training batches as they run, so it costs no second forward."""
    keep = targets != -100
    return int(((logits.argmax(-1) == targets) & keep).sum()), int(keep.sum())

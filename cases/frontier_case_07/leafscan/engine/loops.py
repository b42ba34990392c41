"""The passes over data the trainer is built from."""

from contextlib import contextmanager
from dataclasses import dataclass

import torch

from leafscan.models.freezing import set_training


@dataclass
class PassResult:
    loss: float
    logits: torch.Tensor
    labels: torch.Tensor
    houses: torch.Tensor


@contextmanager
def evaluating(model):
    """Inference mode for the duration of a measurement; the model trains again afterwards if it was
    training before."""
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield model
    finally:
        if was_training:
            set_training(model, True)


def forever(loader):
    """The loader's batches, epoch after epoch (a shuffled loader reshuffles every epoch)."""
    while True:
        yield from loader


def train_step(model, batch, loss_fn, optimizer, grad_clip=0.0):
    x, y, _ = batch
    logits = model(x)
    loss = loss_fn(logits, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if grad_clip > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    optimizer.step()
    return loss.item(), (logits.argmax(dim=-1) == y).sum().item(), len(y)


def measure_batches(model, loader, loss_fn):
    """The whole ``loader`` in batches, without updating anything."""
    total, seen = 0.0, 0
    logits_all, labels_all, houses_all = [], [], []
    for x, y, house in loader:
        logits = model(x)
        total += loss_fn(logits, y).item() * len(y)
        seen += len(y)
        logits_all.append(logits)
        labels_all.append(y)
        houses_all.append(house)
    return PassResult(total / seen, torch.cat(logits_all), torch.cat(labels_all), torch.cat(houses_all))


def measure_split(model, x, y, house, loss_fn):
    """The whole split in one forward pass."""
    logits = model(x)
    return PassResult(loss_fn(logits, y).item(), logits, y, house)


@torch.no_grad()
def predict(model, x, batch_size=1024):
    """Logits for ``x`` in inference mode, in chunks; restores the caller's mode."""
    was_training = model.training
    model.eval()
    out = torch.cat([model(x[i:i + batch_size]) for i in range(0, len(x), batch_size)])
    model.train(was_training)
    return out

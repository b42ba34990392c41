"""The passes over data the trainer is built from."""

from dataclasses import dataclass

import torch


@dataclass
class PassResult:
    loss: float
    logits: torch.Tensor
    labels: torch.Tensor
    instruments: torch.Tensor


def run_epoch(model, loader, loss_fn, optimizer=None, grad_clip=0.0, on_step=None):
    """One pass over ``loader``: trains the model when an optimizer is given, otherwise measures it
    in inference mode."""
    model.train(optimizer is not None)
    total, seen = 0.0, 0
    logits_all, labels_all, instruments_all = [], [], []
    with torch.set_grad_enabled(optimizer is not None):
        for x, y, instrument in loader:
            logits = model(x)
            loss = loss_fn(logits, y)
            if optimizer is not None:
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if grad_clip > 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
                optimizer.step()
                if on_step is not None:
                    on_step()
            total += loss.item() * len(y)
            seen += len(y)
            logits_all.append(logits.detach())
            labels_all.append(y)
            instruments_all.append(instrument)
    return PassResult(total / seen, torch.cat(logits_all), torch.cat(labels_all), torch.cat(instruments_all))


@torch.no_grad()
def evaluate_split(model, x, y, instrument, loss_fn):
    """The whole split in one forward pass."""
    model.eval()
    logits = model(x)
    return PassResult(loss_fn(logits, y).item(), logits, y, instrument)


@torch.no_grad()
def predict(model, x, batch_size=1024):
    """Logits for ``x`` in inference mode, in chunks; restores the caller's mode."""
    was_training = model.training
    model.eval()
    out = torch.cat([model(x[i:i + batch_size]) for i in range(0, len(x), batch_size)])
    model.train(was_training)
    return out

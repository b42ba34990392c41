import torch
import torch.nn.functional as F


def run_epoch(model, loader, opt=None):
    """One pass over ``loader``: updates the model when an optimizer is given, otherwise only measures it."""
    model.train()
    total_loss, correct, seen = 0.0, 0, 0
    with torch.set_grad_enabled(opt is not None):
        for x, y in loader:
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            if opt is not None:
                opt.zero_grad()
                loss.backward()
                opt.step()
            total_loss += loss.item() * len(y)
            correct += (logits.argmax(dim=-1) == y).sum().item()
            seen += len(y)
    return {"loss": total_loss / seen, "acc": correct / seen}

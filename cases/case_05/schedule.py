import math


def lr_at(step, peak_lr, warmup, total, min_ratio=0.1):
    """Linear warmup to peak_lr, then cosine decay to min_ratio * peak_lr at `total`."""
    if step < warmup:
        return peak_lr * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak_lr * (min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def param_groups(model, weight_decay):
    """Decay matrices (Linear weights, embeddings); leave biases and LayerNorm gains alone."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]

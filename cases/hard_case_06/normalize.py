"""Input normalization, selected by features.normalization:

- "global": z-score with the mean/std of every training row of every building, fit once;
- "batch":  z-score each batch with its own statistics. The loader streams one building per
            batch, so this is a per-building normalization that needs no fitting pass and
            follows each building's scale.
"""

import torch

from features import encode


class GlobalScaler:
    def __init__(self, features):
        self.mean = features.mean(dim=0, keepdim=True)
        self.std = features.std(dim=0, keepdim=True)

    def __call__(self, x):
        return (x - self.mean) / self.std

    def state(self):
        return {"mean": self.mean.flatten().tolist(), "std": self.std.flatten().tolist()}


class BatchScaler:
    def __call__(self, x):
        mean = x.mean(dim=0, keepdim=True)
        std = x.std(dim=0, keepdim=True)
        return (x - mean) / std

    def state(self):
        return {}


def build_normalizer(cfg, shards):
    """The configured normalizer; the global one is fit on the encoded rows of every shard."""
    if cfg.normalization == "batch":
        return BatchScaler()
    encoded = torch.cat([encode(s["x"], tuple(cfg.log_columns), cfg.cyclic_hour) for s in shards])
    return GlobalScaler(encoded)


def make_pipeline(cfg, normalizer):
    """raw batch -> model input."""
    log_columns, cyclic = tuple(cfg.log_columns), cfg.cyclic_hour

    def pipeline(raw):
        return normalizer(encode(raw, log_columns, cyclic))

    return pipeline

"""Input standardization with statistics of every training row of every site (fit once)."""

import torch

from features import encode


class Standardizer:
    def __init__(self, features, min_std=1e-3):
        self.mean = features.mean(dim=0, keepdim=True)
        std = features.std(dim=0, keepdim=True)
        # a column with (almost) no spread over the whole export carries no signal: leave it centred
        self.std = torch.where(std > min_std, std, torch.ones_like(std))

    def __call__(self, x):
        return (x - self.mean) / self.std

    def state(self):
        return {"mean": self.mean.flatten().tolist(), "std": self.std.flatten().tolist()}

    @classmethod
    def from_state(cls, state):
        obj = cls.__new__(cls)
        obj.mean = torch.tensor([state["mean"]])
        obj.std = torch.tensor([state["std"]])
        return obj


def build_standardizer(cfg, sites):
    encoded = torch.cat([encode(s["x"], tuple(cfg.log_columns), cfg.cyclic) for s in sites])
    return Standardizer(encoded)


def make_pipeline(cfg, standardizer):
    """raw batch -> model input."""
    log_columns, cyclic = tuple(cfg.log_columns), cfg.cyclic

    def pipeline(raw):
        return standardizer(encode(raw, log_columns, cyclic))

    return pipeline

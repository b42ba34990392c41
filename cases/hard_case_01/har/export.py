"""Export for the phone app, which wants calibrated class probabilities and the input normalization."""

import json
from pathlib import Path

import torch
import torch.nn as nn

from har.data.synth import ACTIVITIES


class ServingModel(nn.Module):
    """Standardize raw windows, run the classifier, return calibrated class probabilities."""

    def __init__(self, classifier, mean, std, temperature=1.0):
        super().__init__()
        self.classifier = classifier
        self.register_buffer("mean", mean.clone())
        self.register_buffer("std", std.clone())
        self.temperature = temperature

    def forward(self, raw):
        scores = self.classifier((raw - self.mean) / self.std)
        return torch.softmax(scores / self.temperature, dim=-1)


def export(classifier, standardizer, cfg, temperature=1.0, metrics=None):
    out_dir = Path(cfg.train.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    serving = ServingModel(classifier, standardizer.mean, standardizer.std, temperature).eval()
    path = out_dir / cfg.export.path
    torch.save(serving.state_dict(), path)
    card = {
        "name": cfg.name,
        "model": cfg.model.name,
        "classes": list(ACTIVITIES[: cfg.data.n_classes]),
        "input": [cfg.data.n_channels, cfg.data.window],
        "temperature": temperature,
        "metrics": metrics or {},
    }
    (out_dir / "model_card.json").write_text(json.dumps(card, indent=2))
    return path

"""Wrap a trained classifier for the on-device app, which wants class probabilities."""

import torch
import torch.nn as nn


class ServingModel(nn.Module):
    def __init__(self, classifier, temperature=1.0):
        super().__init__()
        self.classifier = classifier
        self.temperature = temperature

    def forward(self, x):
        scores = self.classifier(x)
        return torch.softmax(scores / self.temperature, dim=-1)


def export(classifier, path="classifier.pt"):
    serving = ServingModel(classifier).eval()
    torch.save(serving.state_dict(), path)
    return path

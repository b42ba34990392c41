import torch.nn as nn


class Classifier(nn.Module):
    """Two-layer MLP over a window of sensor features."""

    def __init__(self, n_features, n_classes, hidden=64):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(n_features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
        )
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        logits = self.head(self.backbone(x))
        return logits.softmax(dim=-1)

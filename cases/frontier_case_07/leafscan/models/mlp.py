import torch.nn as nn


class LeafMLP(nn.Module):
    """Two hidden layers with BatchNorm and dropout over the band features (the encoder), then a
    linear classifier (the head)."""

    def __init__(self, n_bands, n_classes, hidden=128, dropout=0.5):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(n_bands, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
        )
        self.head = nn.Linear(hidden, n_classes)

    @classmethod
    def from_config(cls, cfg, n_classes):
        return cls(cfg.data.n_bands, n_classes, cfg.model.hidden, cfg.model.dropout)

    def forward(self, x):
        return self.head(self.encoder(x))

import torch.nn as nn


class FaultMLP(nn.Module):
    """Two hidden layers with BatchNorm and dropout over the band features."""

    def __init__(self, n_wavelengths, n_classes, hidden=128, dropout=0.3):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_wavelengths, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, n_classes),
        )

    @classmethod
    def from_config(cls, cfg, n_classes):
        return cls(cfg.data.n_wavelengths, n_classes, cfg.model.hidden, cfg.model.dropout)

    def forward(self, x):
        return self.net(x)

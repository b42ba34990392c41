import torch.nn as nn


class SpectralCNN(nn.Module):
    """1-D convolutions along the band axis (neighbouring bands share harmonics), then an MLP head."""

    def __init__(self, n_wavelengths, n_classes, channels=16, hidden=128, dropout=0.3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, channels, kernel_size=5, padding=2), nn.BatchNorm1d(channels), nn.ReLU(),
            nn.Conv1d(channels, channels, kernel_size=5, padding=2, stride=2), nn.BatchNorm1d(channels), nn.ReLU(),
        )
        self.head = nn.Sequential(
            nn.Flatten(), nn.Dropout(dropout),
            nn.Linear(channels * ((n_wavelengths + 1) // 2), hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, n_classes),
        )

    @classmethod
    def from_config(cls, cfg, n_classes):
        return cls(cfg.data.n_wavelengths, n_classes, cfg.model.channels, cfg.model.hidden, cfg.model.dropout)

    def forward(self, x):
        return self.head(self.features(x.unsqueeze(1)))

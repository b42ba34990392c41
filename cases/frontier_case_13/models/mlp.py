from torch import nn


class MapMLP(nn.Module):
    """A two-layer perceptron on the flattened map (no spatial prior; a baseline for the CNN)."""

    def __init__(self, n_classes, side, hidden=128, dropout=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(side * side, hidden), nn.ReLU(inplace=True),
                                 nn.Dropout(dropout), nn.Linear(hidden, n_classes))

    def forward(self, x):
        return self.net(x)

import torch
from torch import nn


def conv_block(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class WaferCNN(nn.Module):
    """Four conv blocks and a global average pool: works on any input grid size."""

    def __init__(self, n_classes, width=16, dropout=0.1):
        super().__init__()
        self.features = nn.Sequential(conv_block(1, width), conv_block(width, 2 * width, stride=2),
                                      conv_block(2 * width, 2 * width), conv_block(2 * width, 2 * width, stride=2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(2 * width, n_classes)

    def forward(self, x):
        h = self.pool(self.features(x)).flatten(1)
        return self.head(self.drop(h))


def count_params(model):
    return sum(p.numel() for p in model.parameters())


@torch.no_grad()
def predict(model, x):
    model.eval()
    return model(x).argmax(dim=1)

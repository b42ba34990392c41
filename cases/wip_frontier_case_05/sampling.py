"""Which training rows an epoch is made of.

Not every station has the same amount of history: docks that joined the scheme after the export
starts have fewer hours than the others, and drawing the training rows uniformly would let the
longest-running stations fill most of every epoch. Each epoch is therefore drawn with replacement,
as many rows as the training table has, with every station receiving the same expected share
(inverse-frequency row weights).
"""

import numpy as np
import pandas as pd


def row_weights(station):
    """Draw probability of every training row: 1 / (rows of its station), normalized."""
    counts = pd.Series(station).value_counts()
    w = 1.0 / counts.to_numpy()[station]
    return w / w.sum()


class BalancedDraw:
    """Epoch index draws for `Trainer.fit`: `epoch(rng)` returns the row indices of one epoch."""

    def __init__(self, station):
        station = np.asarray(station, dtype=np.int64)
        self.p = row_weights(station)
        self.n = len(station)

    def __len__(self):
        return self.n

    def epoch(self, rng):
        return rng.choice(self.n, size=self.n, replace=True, p=self.p)

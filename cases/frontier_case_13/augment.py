"""Training-time augmentation of model inputs: the eight symmetries of the square (a wafer map has no
preferred orientation) and a few dies whose bin is flipped (test noise)."""

import numpy as np


class Augmenter:
    def __init__(self, dihedral=True, die_noise=0.0, prob=1.0, levels=(0.0, 1.0)):
        self.dihedral = dihedral
        self.die_noise = die_noise
        self.prob = prob
        self.levels = levels      # the input values of a passing and of a failing die

    def __call__(self, x):
        """x: (side, side) float32 map; returns a new array."""
        if np.random.random() >= self.prob:
            return x.copy()
        if self.dihedral:
            x = np.rot90(x, k=np.random.randint(4))
            if np.random.random() < 0.5:
                x = x[:, ::-1]
        if self.die_noise > 0:
            flip = np.random.random(x.shape) < self.die_noise
            lo, hi = self.levels
            x = np.where(flip, lo + hi - x, x)
        return np.ascontiguousarray(x, dtype=np.float32)

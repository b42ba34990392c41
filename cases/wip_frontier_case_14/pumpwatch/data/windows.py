"""Cutting recordings into the fixed-length windows the model sees.

Validation always takes the centred window of a recording, so its scores do not move between runs.
Training takes one window per recording at a random position (a different stretch of every recording
for every seed).
"""

import numpy as np

WINDOW_SEED = 104729


def center_window(wave, length):
    """The middle ``length`` samples (zero-padded at the end when the recording is shorter)."""
    if len(wave) < length:
        return np.pad(wave, (0, length - len(wave)))
    start = (len(wave) - length) // 2
    return wave[start:start + length]


def random_window(wave, length, rng):
    if len(wave) <= length:
        return center_window(wave, length)
    start = int(rng.integers(0, len(wave) - length + 1))
    return wave[start:start + length]


def cut(waves, length, seed=None):
    """One window per recording: random positions when ``seed`` is given (training), else centred."""
    if seed is None:
        return np.stack([center_window(w, length) for w in waves])
    rng = np.random.default_rng([WINDOW_SEED, seed])
    return np.stack([random_window(w, length, rng) for w in waves])

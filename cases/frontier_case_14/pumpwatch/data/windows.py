"""Cutting recordings into the fixed-length windows the model sees.

Validation always takes the centred window of a recording, so its scores do not move between runs.
Training takes one window per recording at a random position (a different stretch of every recording
for every seed). A training window in which the accelerometer saturated (both loggers' sensors clip
above 16 g) would teach the model the flat tops of the clipping, so such a window is redrawn from
another position of the same recording; after ``MAX_DRAWS`` draws the last one is kept.
"""

import numpy as np

FULL_SCALE = 16.0       # g, the accelerometers' range
MAX_DRAWS = 32
WINDOW_SEED = 104729


def center_window(wave, length):
    """The middle ``length`` samples (zero-padded at the end when the recording is shorter)."""
    if len(wave) < length:
        return np.pad(wave, (0, length - len(wave)))
    start = (len(wave) - length) // 2
    return wave[start:start + length]


def saturated(window, full_scale=FULL_SCALE):
    """True when the window reaches the sensor's full-scale range."""
    return bool(np.abs(window).max() >= full_scale)


def random_window(wave, length, rng):
    if len(wave) <= length:
        return center_window(wave, length)
    start = int(rng.integers(0, len(wave) - length + 1))
    return wave[start:start + length]


def training_window(wave, length, rng):
    """A window at a random position of ``wave``, redrawn while it is saturated."""
    for _ in range(MAX_DRAWS):
        window = random_window(wave, length, rng)
        if not saturated(window):
            break
    return window


def cut(waves, length, seed=None):
    """One window per recording: random positions when ``seed`` is given (training), else centred."""
    if seed is None:
        return np.stack([center_window(w, length) for w in waves])
    rng = np.random.default_rng([WINDOW_SEED, seed])
    return np.stack([training_window(w, length, rng) for w in waves])

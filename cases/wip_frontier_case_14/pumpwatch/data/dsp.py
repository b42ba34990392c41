"""Signal helpers: a common timebase, offset and scale, log-power spectrogram frames."""

from fractions import Fraction

import numpy as np
from scipy.signal import resample_poly


def to_timebase(wave, rate, target_rate):
    """Express a recording on the model's sample clock (``target_rate`` samples per second).

    The loggers in the archive run at different rates; the model is trained on one clock
    (polyphase resampling, scipy's default Kaiser-windowed filter).
    """
    if rate == target_rate:
        return np.asarray(wave, dtype=np.float32)
    wave = np.asarray(wave, dtype=np.float64)
    ratio = Fraction(int(target_rate), int(rate))
    n_out = (len(wave) * int(target_rate)) // int(rate)
    return resample_poly(wave, ratio.numerator, ratio.denominator)[:n_out].astype(np.float32)


def remove_offset(wave):
    """Subtract the recording's mean (accelerometer bias and gravity component)."""
    return wave - wave.mean()


def unit_rms(wave):
    """Scale a recording to unit RMS.

    Loggers and sensor mountings differ in gain, so each recording is taken to unit RMS: the
    features describe the spectrum's shape.
    """
    wave = np.asarray(wave, dtype=np.float64)
    return (wave / (np.sqrt(np.mean(wave ** 2)) + 1e-12)).astype(np.float32)


def frame_spectra(windows, frame, hop):
    """Log power of Hann-windowed frames: (n, samples) -> (n, frame // 2 + 1 bins, frames)."""
    windows = np.asarray(windows, dtype=np.float64)
    n_frames = 1 + (windows.shape[1] - frame) // hop
    taper = np.hanning(frame + 1)[:-1]
    idx = np.arange(frame)[None, :] + hop * np.arange(n_frames)[:, None]
    frames = windows[:, idx] * taper
    power = np.abs(np.fft.rfft(frames, axis=-1)) ** 2 / (taper ** 2).sum()
    return np.log(power + 1e-6).transpose(0, 2, 1).astype(np.float32)


def bin_frequencies(frame, rate):
    return np.fft.rfftfreq(frame, 1.0 / rate)

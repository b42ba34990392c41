import numpy as np

from pumpwatch.data.dsp import frame_spectra, to_timebase, unit_rms
from pumpwatch.data.windows import center_window


def test_timebase_keeps_a_shaft_tone():
    t = np.arange(1536) / 2560
    out = to_timebase(np.sin(2 * np.pi * 25 * t), 2560, 1000)
    ref = np.sin(2 * np.pi * 25 * np.arange(len(out)) / 1000)
    assert len(out) == 600
    assert np.abs(out - ref)[10:-10].max() < 0.01


def test_timebase_same_rate_is_identity():
    x = np.random.default_rng(0).standard_normal(600).astype(np.float32)
    assert np.array_equal(to_timebase(x, 1000, 1000), x)


def test_center_window_and_frames():
    w = center_window(np.arange(600, dtype=np.float32), 512)
    assert w[0] == 44 and len(w) == 512
    spec = frame_spectra(w[None, :], 64, 32)
    assert spec.shape == (1, 33, 15)


def test_unit_rms_keeps_the_shape():
    t = np.arange(2000) / 1000
    w = 3.0 * np.sin(2 * np.pi * 49.5 * t) + 0.5 * np.sin(2 * np.pi * 99.0 * t)
    out = unit_rms(w)
    assert out.shape == w.shape and out.dtype == np.float32
    assert abs(np.sqrt(np.mean(out.astype(np.float64) ** 2)) - 1.0) < 1e-5
    assert np.allclose(out, unit_rms(0.2 * w), atol=1e-6)

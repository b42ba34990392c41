import numpy as np

from corpus import N_FEATS, Example, pad_batch
from exports import load_bouts, split_sessions
from pack import pack
from vocab import Vocab


def test_split_keeps_sessions_whole():
    bouts = load_bouts()
    train, val = split_sessions(bouts, 0.2, 7)
    assert len(train) + len(val) == len(bouts)
    assert not {(b.booth, b.session) for b in train} & {(b.booth, b.session) for b in val}


def test_pack_keeps_every_target():
    ex = [Example(np.arange(1, n + 3), "Y01", "2024a", np.zeros((n + 1, N_FEATS), np.float32))
          for n in (3, 9, 20, 5, 30, 4)]
    x, y, tm = pack(ex, 64, seed=0)
    assert int((y != -100).sum()) == sum(e.n_syllables for e in ex)
    assert x.shape[1] == 64


def test_pad_batch_shapes():
    ex = [Example(np.arange(1, n + 3), "Y01", "2024a", np.zeros((n + 1, N_FEATS), np.float32)) for n in (3, 7)]
    x, y, tm = pad_batch(ex)
    assert x.shape == y.shape == (2, 8)
    assert (y[0, 4:] == -100).all()


def test_vocab_roundtrip():
    v = Vocab(list("abc"), ["Y01"])
    ids = v.encode("Y01", "directed", ("a", "c"))
    assert v.decode(ids) == "<Y01> <directed> a c"


def test_band_power_keeps_shape_not_distance():
    from corpus import BANDS, syllable_features

    columns = ("onset", "offset", *BANDS)
    rng = np.random.default_rng(0)
    times = np.array([[1.0, 1.1], [1.13, 1.19], [1.22, 1.33]])
    bands = -40 + rng.normal(0, 5, size=(3, len(BANDS)))
    near = syllable_features(np.hstack([times, bands]), columns)
    far = syllable_features(np.hstack([times, bands - 18.0]), columns)
    assert near.shape[0] == 4
    assert np.allclose(near, far, atol=1e-6)
    assert np.allclose(near[1:, 0], [0.1, 0.06, 0.11], atol=1e-6) and np.allclose(near[2:, 1], [0.03, 0.03], atol=1e-6)
    assert np.allclose((10 ** near[1:, 2:2 + len(BANDS)].astype(np.float64)).sum(1), 1.0, atol=1e-5)


def test_one_note_level_stays_out_of_its_shape():
    """A bird turning on its perch moves one note's level by several dB, every band with it, while the
    microphone stays where it is; the note's timing and spectral-shape inputs must not move with it."""
    from corpus import BANDS, syllable_features

    columns = ("onset", "offset", *BANDS)
    rng = np.random.default_rng(1)
    times = np.array([[2.0, 2.06], [2.09, 2.2], [2.24, 2.29], [2.31, 2.4]])
    bands = -45 + rng.normal(0, 5, size=(4, len(BANDS)))
    turned = bands.copy()
    turned[2] += 6.0
    base = syllable_features(np.hstack([times, bands]), columns)
    moved = syllable_features(np.hstack([times, turned]), columns)
    timing, shape = slice(0, 2), slice(2, 2 + len(BANDS))
    assert np.allclose(base[:, timing], moved[:, timing], atol=1e-6)
    assert np.allclose(base[:, shape], moved[:, shape], atol=1e-6)

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

import numpy as np

from augment import Augmenter


def test_dihedral_keeps_the_failures():
    np.random.seed(0)
    x = (np.random.random((12, 12)) < 0.2).astype(np.float32)
    aug = Augmenter(dihedral=True, die_noise=0.0)
    for _ in range(20):
        y = aug(x)
        assert y.shape == x.shape and y.dtype == np.float32
        assert y.sum() == x.sum()


def test_probability_zero_is_identity():
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    assert (Augmenter(die_noise=0.5, prob=0.0)(x) == x).all()


def test_die_noise_rate():
    np.random.seed(1)
    x = np.zeros((200, 200), np.float32)
    y = Augmenter(dihedral=False, die_noise=0.05)(x)
    assert 0.04 < y.mean() < 0.06

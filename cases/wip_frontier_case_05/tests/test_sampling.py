import numpy as np

from sampling import BalancedDraw, row_weights


def test_weights_are_a_distribution():
    station = np.array([0, 0, 1, 2, 2, 2], dtype=np.int64)
    w = row_weights(station)
    assert w.shape == station.shape
    assert np.all(w > 0)
    assert np.isclose(w.sum(), 1.0)


def test_an_epoch_draws_as_many_rows_as_the_table_has():
    station = np.repeat(np.arange(4), [50, 50, 20, 10])
    draw = BalancedDraw(station)
    idx = draw.epoch(np.random.default_rng(0))
    assert len(idx) == len(draw) == len(station)
    assert idx.min() >= 0 and idx.max() < len(station)

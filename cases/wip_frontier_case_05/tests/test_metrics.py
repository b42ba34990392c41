import numpy as np

from metrics import bias, mae, wape


def test_metrics():
    y = np.array([0.0, 2.0, 4.0])
    p = np.array([1.0, 2.0, 2.0])
    assert mae(y, p) == 1.0
    assert bias(y, p) == -1.0 / 3.0
    assert wape(y, p) == 0.5

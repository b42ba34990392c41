import numpy as np

from lots import by_lot, fail_share
from preprocess import Standardizer, fail_fraction
from sweep import parse_grid
from wafers import FAIL, NO_DIE, PASS, MapSet


def test_parse_grid():
    assert parse_grid(["train.lr=1e-3,3e-3", "model.width=16"]) == [
        ["train.lr=1e-3", "train.lr=3e-3"], ["model.width=16"]]


def test_fail_fraction_codes():
    m = np.array([[NO_DIE, PASS], [FAIL, FAIL]], dtype=np.uint8)
    assert fail_fraction(m).tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert abs(fail_share(m) - 2 / 3) < 1e-9


def test_standardizer():
    x = np.random.default_rng(0).random((10, 4, 4)).astype(np.float32)
    z = Standardizer(x)(x)
    assert abs(z.mean()) < 1e-5 and abs(z.std() - 1) < 1e-3


def test_by_lot_groups():
    maps = np.ones((3, 4), np.uint8)
    ms = MapSet(maps, np.array([0, 1, 0]), np.array(["A", "A", "B"]))
    rows = by_lot(ms, ["x", "y"])
    assert [r["lot"] for r in rows] == ["A", "B"]
    assert rows[0]["classes"] == {"x": 1, "y": 1}

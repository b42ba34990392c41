import numpy as np
import torch

from pumpwatch.config import load_config
from pumpwatch.data import CLASSES, archive, build_splits
from pumpwatch.data.augment import FrameShift, GainJitter, build_augment
from pumpwatch.data.pipeline import Standardizer


def small_config():
    return load_config("configs/plant.toml", ["data.n_train=60", "data.n_val=40"])


def test_export_reads_back_in_physical_units():
    recs = archive.read("data")
    assert len(recs) >= 1800
    assert {r.logger for r in recs} == {"vx1", "vx2"} and {r.label for r in recs} == set(range(len(CLASSES)))
    assert all(np.abs(r.wave).max() <= 20.0 for r in recs)
    assert all(r.rate in (1000, 2560) for r in recs)


def test_splits_shapes_and_training_statistics():
    train, val, scaler = build_splits(small_config())
    assert train.x.shape[1:] == (33, 15) and train.x.shape[0] == 60 and val.x.shape == (40, 33, 15)
    assert torch.allclose(train.x.mean(dim=(0, 2)), torch.zeros(33), atol=1e-3)
    assert len(scaler.state()["mean"]) == 33


def test_standardizer_uses_fit_statistics():
    x = np.random.default_rng(0).standard_normal((10, 4, 6)) * 3 + 1
    s = Standardizer().fit(x)
    assert np.allclose(s(x).mean(axis=(0, 2)), 0, atol=1e-6)


def test_augment_keeps_shape():
    x = torch.randn(8, 33, 15)
    assert FrameShift(2)(x).shape == x.shape
    assert GainJitter(0.1)(x).shape == x.shape
    assert repr(build_augment(small_config())) == "FrameShift+GainJitter"


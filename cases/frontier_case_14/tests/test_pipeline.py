import numpy as np
import torch

from pumpwatch.config import load_config
from pumpwatch.data import archive, build_splits, synth
from pumpwatch.data.augment import FrameShift, GainJitter, build_augment
from pumpwatch.data.pipeline import Standardizer
from pumpwatch.data.store import FeatureStore


def small_config():
    return load_config("configs/plant.toml", ["data.n_train=60", "data.n_val=40"])


def test_generate_is_deterministic_and_covers_loggers():
    a, b = synth.generate(50, 3), synth.generate(50, 3)
    assert all(np.array_equal(x.wave, y.wave) and x.label == y.label for x, y in zip(a, b))
    assert {r.logger for r in a} == {lg.name for lg in synth.LOGGERS}
    for r in a:
        assert synth.INTERRUPTED[1][0] * r.rate <= len(r.wave) <= synth.DURATION_S[1] * r.rate


def test_splits_shapes_and_training_statistics():
    train, val, scaler = build_splits(small_config())
    assert train.x.shape[1:] == (35, 15) and train.x.shape[0] == 60 and val.x.shape == (40, 35, 15)
    assert torch.allclose(train.x.mean(dim=(0, 2)), torch.zeros(35), atol=1e-3)
    assert len(scaler.state()["mean"]) == 35


def test_standardizer_uses_fit_statistics():
    x = np.random.default_rng(0).standard_normal((10, 4, 6)) * 3 + 1
    s = Standardizer().fit(x)
    assert np.allclose(s(x).mean(axis=(0, 2)), 0, atol=1e-6)


def test_augment_keeps_shape():
    x = torch.randn(8, 33, 15)
    assert FrameShift(2)(x).shape == x.shape
    assert GainJitter(0.1)(x).shape == x.shape
    assert repr(build_augment(small_config())) == "FrameShift+GainJitter"


def test_export_reads_back_in_physical_units():
    files = synth.export(80, 5)
    recs = archive.read(files)
    assert len(recs) == sum(len(f["captures"]) for f in files) == 80
    assert {f["year"] for f in files} == {y for y, _ in synth.YEARS}
    first = files[0]["captures"][0]
    assert recs[0].rate == first.rate and recs[0].label == first.label and len(recs[0].wave) == len(first.counts)
    assert all(np.abs(r.wave).max() <= synth.RANGES[-1] for r in recs)


def test_store_repeats_line_features_along_frames():
    frames = np.random.default_rng(1).standard_normal((4, 33, 15))
    lines = np.array([[49.5, -0.3]] * 4)
    x = FeatureStore(frames, lines).inputs()
    assert x.shape == (4, 35, 15) and x.dtype == np.float32
    assert np.allclose(x[:, 33], 49.5) and np.allclose(x[:, 34], -0.3, atol=1e-3)

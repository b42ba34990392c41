"""Data pipeline, models and export on a tiny configuration (a few seconds on CPU)."""

import torch

from har.config import load_config
from har.data import BatchStream, build_splits
from har.data.loader import class_weights
from har.export import ServingModel
from har.models import REGISTRY, build_model
from har.optim import lr_factor


def tiny(name="mlp"):
    return load_config(None, ["data.n_train=256", "data.n_val=64", f"model.name={name}", "model.channels=8",
                              "model.hidden=16", "train.steps=5"])


def test_standardization_uses_training_statistics():
    splits = build_splits(tiny().data, seed=0)
    mean = splits.x_train.mean(dim=(0, 2))
    std = splits.x_train.std(dim=(0, 2))
    assert torch.allclose(mean, torch.zeros_like(mean), atol=1e-5)
    assert torch.allclose(std, torch.ones_like(std), atol=1e-4)


def test_batches_have_the_configured_size_and_cover_the_classes():
    cfg = tiny()
    splits = build_splits(cfg.data, seed=0)
    stream = iter(BatchStream(splits.x_train, splits.y_train, cfg.data, seed=0))
    seen = set()
    for _ in range(8):
        xb, yb = next(stream)
        assert xb.shape == (cfg.data.batch_size, cfg.data.n_channels, cfg.data.window)
        seen |= set(yb.tolist())
    assert len(seen) == cfg.data.n_classes


def test_balanced_weights_favour_rare_classes():
    y = torch.tensor([0] * 90 + [1] * 10)
    w = class_weights(y, 2, temperature=1.0)
    assert w[-1] > w[0]
    assert torch.equal(class_weights(y, 2, temperature=0.0), torch.ones(100))


def test_every_model_maps_windows_to_one_row_per_window():
    for name in REGISTRY:
        cfg = tiny(name)
        model = build_model(cfg.model, cfg.data)
        out = model(torch.randn(3, cfg.data.n_channels, cfg.data.window))
        assert out.shape == (3, cfg.data.n_classes), name


def test_serving_model_returns_a_distribution():
    cfg = tiny()
    splits = build_splits(cfg.data, seed=0)
    serving = ServingModel(build_model(cfg.model, cfg.data), splits.standardizer.mean, splits.standardizer.std)
    probs = serving(torch.randn(4, cfg.data.n_channels, cfg.data.window))
    assert torch.allclose(probs.sum(-1), torch.ones(4), atol=1e-5)


def test_schedule_warms_up_then_decays():
    assert lr_factor(0, 100, 10, 0.1) == 0.1
    assert lr_factor(9, 100, 10, 0.1) == 1.0
    assert abs(lr_factor(100, 100, 10, 0.1) - 0.1) < 1e-9

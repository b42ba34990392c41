import torch

from nirgrain.config import load_config
from nirgrain.data import build_datasets, rebuild_split
from nirgrain.data.transforms import BandDropout, Compose, InstrumentBaseline, Jitter, Absorbance, Standardize


def test_standardize_uses_training_statistics():
    cfg = load_config("configs/base.toml", ["data.n_train=256", "data.n_val=64", "data.instrument_baseline=false"])
    data = build_datasets(cfg)
    x = data.train_loader.x
    assert torch.allclose(x.mean(0), torch.zeros(x.shape[1]), atol=1e-5)
    assert torch.allclose(x.std(0), torch.ones(x.shape[1]), atol=1e-4)


def test_rebuilt_validation_split_matches():
    cfg = load_config("configs/experiment.toml", ["data.n_train=256", "data.n_val=64"])
    data = build_datasets(cfg)
    x, y, instrument = rebuild_split(cfg, data.static.state_dict(), "val")
    assert torch.equal(x, data.val_x) and torch.equal(y, data.val_y) and torch.equal(instrument, data.val_instrument)


def test_augmentation_is_identity_in_eval():
    aug = Compose([Jitter(0.1), BandDropout(0.5)])
    x = torch.randn(8, 32)
    g = torch.Generator().manual_seed(0)
    assert not torch.equal(aug(x, g), x)
    aug.eval()
    assert torch.equal(aug(x, g), x)
    aug.train()
    assert all(stage.training for stage in aug.stages)


def test_validation_batches_repeat():
    cfg = load_config("configs/experiment.toml", ["data.n_train=256", "data.n_val=300"])
    data = build_datasets(cfg)
    first = [x for x, _, _ in data.val_loader]
    second = [x for x, _, _ in data.val_loader]
    assert [len(b) for b in first] == [256, 44]
    assert all(torch.equal(a, b) for a, b in zip(first, second))


def test_static_stages_round_trip():
    raw = torch.rand(50, 32) + 0.1
    stages = Compose([Absorbance(), Standardize()]).fit(raw)
    copy = Compose([Absorbance(), Standardize()])
    copy.load_state_dict(stages.state_dict())
    assert torch.equal(stages(raw), copy(raw))


def test_instrument_baseline_removes_each_instruments_mean():
    cfg = load_config("configs/experiment.toml", ["data.n_train=512", "data.n_val=64"])
    data = build_datasets(cfg)
    x, groups = data.train_loader.x, data.train_loader.instrument
    for g in torch.unique(groups):
        assert torch.allclose(x[groups == g].mean(0), x.mean(0), atol=1e-4)


def test_instrument_baseline_round_trip():
    x, groups = torch.randn(40, 16), torch.arange(40) % 4
    stage = InstrumentBaseline().fit(x, groups)
    copy = InstrumentBaseline()
    copy.load_state_dict(stage.state_dict())
    assert torch.equal(stage(x, groups=groups), copy(x, groups=groups))

import torch

from leafscan.config import load_config
from leafscan.data import build_datasets, rebuild_split
from leafscan.data.transforms import BandMask, Compose, Jitter, LogReflectance, Standardize


def test_standardize_uses_training_statistics():
    cfg = load_config("configs/base.toml", ["data.n_train=256", "data.n_val=64"])
    data = build_datasets(cfg)
    x = data.train_loader.x
    assert torch.allclose(x.mean(0), torch.zeros(x.shape[1]), atol=1e-5)
    assert torch.allclose(x.std(0), torch.ones(x.shape[1]), atol=1e-4)


def test_rebuilt_validation_split_matches():
    cfg = load_config("configs/houses.toml", ["data.n_train=256", "data.n_val=64"])
    data = build_datasets(cfg)
    x, y, house = rebuild_split(cfg, data.static.state_dict(), "val")
    assert torch.equal(x, data.val_x) and torch.equal(y, data.val_y) and torch.equal(house, data.val_house)


def test_augmentation_is_identity_in_eval():
    aug = Compose([Jitter(0.1), BandMask(0.5)])
    x = torch.randn(8, 48)
    g = torch.Generator().manual_seed(0)
    assert not torch.equal(aug(x, g), x)
    aug.eval()
    assert torch.equal(aug(x, g), x)
    aug.train()
    assert all(stage.training for stage in aug.stages)


def test_validation_batches_repeat():
    cfg = load_config("configs/houses.toml", ["data.n_train=256", "data.n_val=300", "eval.batch_size=128"])
    data = build_datasets(cfg)
    first = [x for x, _, _ in data.val_loader]
    second = [x for x, _, _ in data.val_loader]
    assert [len(b) for b in first] == [128, 128, 44]
    assert all(torch.equal(a, b) for a, b in zip(first, second))


def test_static_stages_round_trip():
    raw = torch.rand(50, 48) + 0.1
    stages = Compose([LogReflectance(), Standardize()]).fit(raw)
    copy = Compose([LogReflectance(), Standardize()])
    copy.load_state_dict(stages.state_dict())
    assert torch.equal(stages(raw), copy(raw))

"""Unit tests for the pieces that do not need a training run: python -m pytest -q tests"""

import math
import sys
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from config import ConfigError, load_config, to_toml  # noqa: E402
from datasets import GlyphSet, ShiftAugmented, stack_items  # noqa: E402
from glyphs import make_glyphs  # noqa: E402
from memory import MemoryBank, embed_loader  # noqa: E402
from metrics import most_confused, top_k_accuracy  # noqa: E402
from normalize import Normalizer  # noqa: E402
from prototypes import PrototypeBank  # noqa: E402
from samplers import ClassBalancedBatches  # noqa: E402
from splits import build_splits, class_counts  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def test_experiment_inherits_and_overrides():
    cfg = load_config(CONFIGS / "nca.toml", ["optim.lr=3e-3", "data.augment=true"])
    assert cfg.classifier.kind == "nca" and cfg.data.n_classes == 100
    assert cfg.optim.lr == 3e-3 and cfg.data.augment is True


def test_resolved_config_round_trips(tmp_path):
    cfg = load_config(CONFIGS / "nca.toml", ["name=\"a 'quoted' run\""])
    path = tmp_path / "resolved.toml"
    path.write_text(to_toml(cfg))
    assert load_config(path) == cfg


def test_bad_values_are_errors():
    with pytest.raises(ConfigError, match="classifier.tauu"):
        load_config(CONFIGS / "base.toml", ["classifier.tauu=0.1"])
    with pytest.raises(ConfigError, match="val_frac"):
        load_config(CONFIGS / "base.toml", ["data.val_frac=1.5"])


def test_glyphs_are_class_major_and_seeded():
    a, la = make_glyphs(5, 3, seed=0)
    b, _ = make_glyphs(5, 3, seed=0)
    assert a.shape == (15, 1, 12, 12) and la.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    assert torch.equal(a, b)


def test_splits_are_disjoint_and_complete():
    cfg = load_config(CONFIGS / "base.toml", ["data.n_classes=10"])
    train_set, val_set = build_splits(cfg)
    rows = set(train_set.indices) | set(val_set.indices)
    assert len(rows) == 100 and not set(train_set.indices) & set(val_set.indices)
    assert int(class_counts(train_set, 10).sum()) == len(train_set)


def test_stratified_split_gives_every_class_validation_images():
    cfg = load_config(CONFIGS / "base.toml", ["data.n_classes=10", 'data.split="stratified"'])
    train_set, val_set = build_splits(cfg)
    assert class_counts(val_set, 10).tolist() == [2] * 10 and class_counts(train_set, 10).tolist() == [8] * 10


def test_items_carry_rows_of_the_full_set():
    cfg = load_config(CONFIGS / "base.toml", ["data.n_classes=10"])
    train_set, _ = build_splits(cfg)
    _, _, rows = stack_items(train_set)
    assert rows.tolist() == list(train_set.indices)


def test_augmentation_keeps_labels_and_rows():
    images, labels = make_glyphs(4, 2, seed=1)
    view = ShiftAugmented(GlyphSet(images, labels), seed=0)
    _, y, rows = stack_items(view)
    assert torch.equal(y, labels) and rows.tolist() == list(range(8))


def test_balanced_batches_hold_pairs():
    cfg = load_config(CONFIGS / "base.toml", ["data.n_classes=20"])
    train_set, _ = build_splits(cfg)
    batch = next(iter(ClassBalancedBatches(train_set, classes_per_batch=4, per_class=2, seed=0)))
    labels = train_set.dataset.labels[torch.as_tensor(train_set.indices)][batch]
    assert len(batch) == 8 and len(labels.unique()) == 4


def test_bank_query_skips_itself():
    keys = torch.eye(3)
    bank = MemoryBank(keys, torch.tensor([0, 1, 1]), torch.tensor([10, 11, 12]), 2)
    logp = bank.log_probs(keys[:1], tau=0.01, query_ids=torch.tensor([10]))
    assert math.isclose(logp.exp()[0, 1].item(), 1.0, rel_tol=1e-5)


def test_prototypes_are_class_means():
    keys = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    protos = PrototypeBank(keys, torch.tensor([0, 1, 0]), 3)
    assert len(protos) == 2 and torch.allclose(protos.prototypes[0], torch.tensor([1.0, 0.0]))


def test_normalizer_and_loader_embedding():
    images, labels = make_glyphs(3, 4, seed=2)
    loader = DataLoader(GlyphSet(images, labels), batch_size=5)
    norm = Normalizer().fit(loader)
    assert torch.allclose(norm.mean, images.mean(0))
    keys, y, rows = embed_loader(torch.nn.Flatten(), norm, loader)
    assert keys.shape == (12, 144) and rows.tolist() == list(range(12)) and torch.equal(y, labels)


def test_metrics():
    logp = torch.log(torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.5, 0.4, 0.1]]))
    labels = torch.tensor([0, 1, 1])
    assert math.isclose(top_k_accuracy(logp, labels, k=2), 1.0)
    assert most_confused(logp, labels) in ([(1, 2, 1), (1, 0, 1)], [(1, 0, 1), (1, 2, 1)])

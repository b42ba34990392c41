import numpy as np

from checks import check_export
from loader import MapDataset, augment_prob
from config import AugmentConfig
from wafers import last_tests, load_export


def test_export_loads_and_checks():
    train, val, classes = load_export("data/wafer_maps.npz")
    assert len(classes) == 7
    assert train.bins.shape[1] == val.bins.shape[1] == len(train.layout)
    warnings = check_export(train, val, classes)
    assert all(isinstance(w, str) for w in warnings)


def test_last_tests_drops_retests():
    train, _, _ = load_export("data/wafer_maps.npz")
    kept = last_tests(train)
    assert len(kept) < len(train)
    keys = {(str(l), int(w), m.tobytes()) for l, w, m in zip(kept.lots, kept.wafers, kept.bins)}
    assert len(keys) == len(kept)


def test_dataset_items():
    x = np.zeros((3, 12, 12), np.float32)
    ds = MapDataset(x, np.array([0, 1, 2]))
    item, label = ds[1]
    assert tuple(item.shape) == (1, 12, 12) and label == 1


def test_augment_warmup():
    cfg = AugmentConfig(warmup_epochs=4)
    assert augment_prob(cfg, 0) == 0.25
    assert augment_prob(cfg, 10) == 1.0

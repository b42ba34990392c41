"""Unit tests for the pieces that do not need a training run: python -m pytest -q tests"""

import math
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from callbacks import LRSchedule  # noqa: E402
from config import ConfigError, load_config, to_toml  # noqa: E402
from layers import masked_max, masked_mean  # noqa: E402
from loader import collate, train_batches  # noqa: E402
from metrics import confusion_matrix, macro_f1  # noqa: E402
from synth import frame, make_dataset  # noqa: E402
from transforms import Augment, channel_stats  # noqa: E402

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def test_experiment_inherits_and_overrides():
    cfg = load_config(CONFIGS / "recurrent.toml", ["optim.lr=1e-2", "data.bucket_by_length=false"])
    assert cfg.model.kind == "gru" and cfg.data.n_train == 2000
    assert cfg.optim.lr == 1e-2 and cfg.data.bucket_by_length is False


def test_resolved_config_round_trips(tmp_path):
    cfg = load_config(CONFIGS / "recurrent.toml", ['name="a \\"quoted\\" run"'])
    path = tmp_path / "resolved.toml"
    path.write_text(to_toml(cfg))
    assert load_config(path) == cfg


def test_unknown_key_is_an_error():
    with pytest.raises(ConfigError, match="optim.lrr"):
        load_config(CONFIGS / "base.toml", ["optim.lrr=0.1"])


def test_frame_averages_blocks():
    raw = torch.arange(16.0).reshape(1, 8, 2)
    assert frame(raw, hop=4).tolist() == [[[3.0, 4.0], [11.0, 12.0]]]


def test_collate_pads_with_zeros():
    x, lengths = collate([torch.ones(3, 2), torch.ones(5, 2)])
    assert x.shape == (2, 5, 2) and lengths.tolist() == [3, 5] and x[0, 3:].abs().sum() == 0


def test_masked_pooling_ignores_padding():
    h = torch.tensor([[[1.0], [3.0], [100.0]]])
    lengths = torch.tensor([2])
    assert masked_mean(h, lengths).item() == 2.0 and masked_max(h, lengths).item() == 3.0


def test_augment_keeps_padding_zero():
    x, lengths = collate([torch.ones(3, 6), torch.ones(7, 6)])
    out = Augment(jitter=0.5, scale_range=0.2, seed=0)(x, lengths)
    assert out[0, 3:].abs().sum() == 0


def test_channel_stats_match_concatenation():
    xs, _ = make_dataset(20, seed=3)
    stats = channel_stats(xs)
    allframes = torch.cat(xs)
    assert torch.allclose(stats.mean, allframes.mean(0)) and torch.allclose(stats.std, allframes.std(0))


def test_bucketed_batches_are_full_and_cover_lengths():
    xs, ys = make_dataset(300, seed=1)
    x, lengths, y = next(train_batches(xs, ys, 32, seed=0, bucket=True))
    assert x.shape[0] == 32 and int(lengths.max()) - int(lengths.min()) <= 4


def test_warmup_then_cosine():
    sched = LRSchedule(1.0, 100, warmup=10, kind="cosine")
    assert sched.lr_at(0) == 0.0 and sched.lr_at(10) == 1.0
    assert math.isclose(sched.lr_at(100), 0.1)


def test_confusion_and_f1():
    labels = torch.tensor([0, 0, 1, 1])
    preds = torch.tensor([0, 1, 1, 1])
    assert confusion_matrix(preds, labels, 2).tolist() == [[1, 1], [0, 2]]
    assert math.isclose(macro_f1(preds, labels, 2), (2 / 3 + 0.8) / 2, rel_tol=1e-6)

import contextlib
import io

import torch

from config import load_config
from data import load_shards
from train import run


def small_shards(rows=128):
    return [{"name": s["name"], "x": s["x"][:rows], "y": s["y"][:rows]} for s in load_shards()]


def test_base_config_trains_and_logs_every_batch():
    cfg = load_config("configs/base.toml", ["train.epochs=1"])
    with contextlib.redirect_stdout(io.StringIO()):
        model, history = run(cfg, shards=small_shards())
    assert len(history) == 6 * 2
    assert all(torch.isfinite(torch.tensor(h["loss"])) for h in history)


def test_runs_are_reproducible():
    cfg = load_config("configs/base.toml", ["train.epochs=1", "train.seed=3"])
    with contextlib.redirect_stdout(io.StringIO()):
        _, a = run(cfg, shards=small_shards())
        _, b = run(cfg, shards=small_shards())
    assert [h["loss"] for h in a] == [h["loss"] for h in b]

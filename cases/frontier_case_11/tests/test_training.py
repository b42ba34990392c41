import contextlib
import io

import torch

from config import load_config
from data import load_sites
from optim import Updater
from train import run


def small_sites(rows=24 * 9):
    return [{"name": s["name"], "x": s["x"][:rows], "y": s["y"][:rows]} for s in load_sites()]


def test_base_config_trains_and_logs_every_batch():
    cfg = load_config("configs/base.toml", ["train.epochs=1"])
    with contextlib.redirect_stdout(io.StringIO()):
        _, history, report = run(cfg, sites=small_sites())
    assert len(history) == 6 * (48 // 32)
    assert all(torch.isfinite(torch.tensor(h["loss"])) for h in history)
    assert set(report) == {s["name"] for s in small_sites()}


def test_runs_are_reproducible():
    cfg = load_config("configs/fleet.toml", ["train.epochs=1", "train.seed=3"])
    with contextlib.redirect_stdout(io.StringIO()):
        _, a, _ = run(cfg, sites=small_sites())
        _, b, _ = run(cfg, sites=small_sites())
    assert [h["loss"] for h in a] == [h["loss"] for h in b]


def test_overflowing_update_leaves_the_weights_alone():
    cfg = load_config("configs/base.toml").optim
    model = torch.nn.Linear(3, 1)
    updater = Updater(cfg, model, total_steps=10)
    before = [p.detach().clone() for p in model.parameters()]
    updater.update(model(torch.full((2, 3), 3e38)).sum() * 10)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    assert updater.stats.skipped == 1 and updater.stats.applied == 0

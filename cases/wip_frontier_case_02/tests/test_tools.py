import json

import numpy as np
import torch

from config import load_arch
from data import load_exports
from export import app_arrays, app_forward, self_test
from models import build_collarnet
from tools.compare_runs import compare
from tools.summarize_exports import cow_gaps, state_table


def test_app_forward_matches_model():
    torch.manual_seed(0)
    model = build_collarnet(24, ("a", "b", "c"), load_arch("configs/collar_mlp.toml"))
    model.train()
    model(torch.randn(64, 24) * 2 + 1)
    mean, std = np.zeros(24, dtype=np.float32), np.ones(24, dtype=np.float32)
    arrays = app_arrays(model, mean, std)
    agree, err = self_test(model, arrays, mean, std)
    assert agree >= 0.98 and err < 1e-3
    assert app_forward(arrays, mean[None, :]).shape == (1, 3)


def test_state_table_covers_every_window():
    table = load_exports("data/exports")
    rows = state_table(table, "farm")
    assert sum(sum(c.values()) for c in rows.values()) == len(table)
    assert len(cow_gaps(table)) == 128


def test_compare_runs_lines():
    row = {"epoch": 1, "loss": 1.0, "acc": 0.5, "bal_acc": 0.4, "recall": [0.5, 0.3]}
    text = compare([row], [dict(row, acc=0.6)], ["a", "b"])
    assert "0.6000" in text and "final recall" in text
    json.dumps(row)


def test_short_run_learns(tmp_path):
    from config import load_config
    from train import run

    cfg = load_config("configs/herd26.toml", ["train.epochs=2", f"train.out_dir={tmp_path}"])
    trainer = run(cfg)
    assert len(trainer.history) == 2
    assert trainer.history[-1]["acc"] > 0.5
    assert (tmp_path / "collarnet_2026.npz").exists()
    saved = json.loads((tmp_path / "history.json").read_text())
    assert saved[-1]["epoch"] == 2

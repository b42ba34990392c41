import json

import numpy as np
import torch

from data import load_exports
from export import gateway_arrays, gateway_forward, self_test
from models import load_pretrained
from tools.compare_runs import compare
from tools.summarize_exports import wagon_gaps, condition_table


def test_gateway_forward_matches_model():
    model, (mean, std) = load_pretrained("pretrained/wheelnet_2025.npz")
    model.eval()
    arrays = gateway_arrays(model, mean, std)
    agree, err = self_test(model, arrays, mean, std)
    assert agree >= 0.98 and err < 1e-2
    x = np.asarray(mean, dtype=np.float32)[None, :]
    assert gateway_forward(arrays, x).shape == (1, 4)


def test_condition_table_covers_every_pass():
    table = load_exports("data/exports")
    rows = condition_table(table, "site")
    assert sum(sum(c.values()) for c in rows.values()) == len(table)
    assert set(wagon_gaps(table)) == set(table.wagons)


def test_compare_runs_lines():
    row = {"epoch": 1, "loss": 1.0, "acc": 0.5, "bal_acc": 0.4, "recall": [0.5, 0.3]}
    text = compare([row], [dict(row, acc=0.6)], ["a", "b"])
    assert "0.6000" in text and "final recall" in text
    json.dumps(row)


def test_short_run_learns(tmp_path):
    from config import load_config
    from train import run

    cfg = load_config("configs/fleet26.toml", ["train.epochs=2", f"train.out_dir={tmp_path}"])
    trainer = run(cfg)
    assert len(trainer.history) == 2
    assert trainer.history[-1]["bal_acc"] > 0.3
    assert (tmp_path / "wheelnet_2026.npz").exists()
    saved = json.loads((tmp_path / "history.json").read_text())
    assert saved[-1]["epoch"] == 2
    assert torch.isfinite(torch.tensor(trainer.history[-1]["loss"]))

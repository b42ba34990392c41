from config import load_config
from train import run


def test_short_run_trains_and_reports_every_station():
    cfg = load_config("configs/dock.toml", ["train.epochs=2"])
    out = run(cfg, print_fn=lambda *a: None)
    report = out["report"]
    assert set(report) == set(cfg.data.stations) | {"all"}
    assert len(out["history"]) == 2
    assert out["history"][1]["train_loss"] < out["history"][0]["train_loss"]
    assert 0.0 < report["all"]["mae"] < 10.0


def test_linear_baseline_runs():
    cfg = load_config("configs/base.toml", ["train.epochs=1"])
    out = run(cfg, print_fn=lambda *a: None)
    assert out["report"]["all"]["mae"] > 0

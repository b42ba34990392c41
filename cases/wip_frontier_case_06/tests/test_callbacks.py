import json

from callbacks import EarlyStopping, MetricsFile, PeriodicEval
from config import load_config, save_config, to_dict


class _Trainer:
    def __init__(self):
        self.stop = False


def test_early_stopping_after_patience():
    evaluator = PeriodicEval(0)
    stopper = EarlyStopping(evaluator, patience=2)
    trainer = _Trainer()
    for step, score in enumerate([0.5, 0.6, 0.55, 0.58]):
        evaluator.history.append((step, 0.0, score))
        stopper.on_step_end(trainer, step, 0.0)
    assert trainer.stop


def test_config_round_trip(tmp_path):
    cfg = load_config("configs/router.toml")
    save_config(cfg, tmp_path / "c.json")
    assert json.loads((tmp_path / "c.json").read_text()) == json.loads(json.dumps(to_dict(cfg)))


def test_metrics_file_starts_empty(tmp_path):
    cb = MetricsFile(tmp_path / "m" / "metrics.jsonl", 10)
    cb.on_train_begin(None)
    assert (tmp_path / "m" / "metrics.jsonl").read_text() == ""

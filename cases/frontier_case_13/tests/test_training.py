import contextlib
import io

from config import load_config
from train import run


def test_short_run_learns_something():
    cfg = load_config("configs/cnn.toml", ["train.epochs=3", "train.num_workers=0", "train.export_dir="])
    with contextlib.redirect_stdout(io.StringIO()) as out:
        model, history, report = run(cfg)
    assert len(history) == 3
    assert history[-1]["train_loss"] < history[0]["train_loss"]
    assert report["val_acc"] > 1 / 7
    assert "kept epoch" in out.getvalue()

import train
from pumpwatch.config import load_config

SMALL = ["data.n_train=64", "data.n_val=40", "trainer.epochs=3"]


def test_resumed_run_repeats_the_uninterrupted_one(tmp_path, monkeypatch):
    full = train.run(load_config("configs/plant.toml", [*SMALL, f"output.dir={tmp_path / 'full'}"]), echo=False)

    part = tmp_path / "part"
    fit = train.Trainer.fit

    def interrupted(self, start_epoch=1):  # the machine goes down after epoch 2
        self.cfg.trainer.epochs = 2
        return fit(self, start_epoch)

    monkeypatch.setattr(train.Trainer, "fit", interrupted)
    train.run(load_config("configs/plant.toml", [*SMALL, f"output.dir={part}", "trainer.save_last=true"]), echo=False)
    monkeypatch.undo()

    resumed = train.run(load_config("configs/plant.toml", [*SMALL, f"output.dir={part}"]), echo=False, resume=True)
    assert [r["epoch"] for r in resumed["history"]] == [1, 2, 3]
    assert [round(r["val_loss"], 5) for r in resumed["history"]] == [round(r["val_loss"], 5) for r in full["history"]]

"""Trainer callbacks: logging, keeping the best epoch, writing the checkpoint."""

import copy
import json
from pathlib import Path

import numpy as np
import torch


class EpochReport:
    def on_epoch_end(self, trainer, metrics):
        lr = trainer.optimizer.param_groups[0]["lr"]
        print(f"step {trainer.step:4d} | epoch {trainer.epoch:2d} | val loss {metrics['loss']:.4f} | val acc {metrics['acc']:.4f} | val bal acc {metrics['bal_acc']:.4f} "
              f"| lr {lr:.2e}")


class KeepBest:
    """Keeps the weights of the epoch with the lowest validation loss and restores them at the end."""

    def __init__(self):
        self.best = None

    def on_epoch_end(self, trainer, metrics):
        if self.best is None or metrics["loss"] < self.best[1]:
            self.best = (trainer.epoch, metrics["loss"], copy.deepcopy(trainer.model.state_dict()))

    def on_fit_end(self, trainer):
        if self.best is not None:
            trainer.model.load_state_dict(self.best[2])
            trainer.kept_epoch = self.best[0]


class Checkpoint:
    """Writes the kept weights (as .npz arrays) and the metrics history to out_dir."""

    def __init__(self, out_dir):
        self.out = Path(out_dir) if out_dir else None

    def on_fit_end(self, trainer):
        if self.out is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        arrays = {k: v.detach().cpu().numpy() for k, v in trainer.model.state_dict().items()}
        arrays["classes"] = np.array(trainer.model.classes)
        np.savez(self.out / "collarnet_2026.npz", **arrays)
        rows = [{k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in row.items()} for row in trainer.history]
        (self.out / "history.json").write_text(json.dumps(rows, indent=1))


def default_callbacks(cfg):
    return [EpochReport(), KeepBest(), Checkpoint(cfg.train.out_dir)]


def seed_everything(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)

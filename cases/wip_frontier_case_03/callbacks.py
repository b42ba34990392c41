"""Trainer callbacks: logging, checkpoints."""

import json
from pathlib import Path

import numpy as np
import torch


class EpochReport:
    def on_epoch_end(self, trainer, metrics):
        lr = trainer.optimizer.param_groups[0]["lr"]
        print(f"step {trainer.step:4d} | epoch {trainer.epoch:2d} | val loss {metrics['loss']:.4f} "
              f"| val acc {metrics['acc']:.4f} | val bal acc {metrics['bal_acc']:.4f} | lr {lr:.2e}")


class GradientWatch:
    """Warns when the training loss jumps (a step that blew up despite clipping)."""

    def __init__(self, factor=4.0):
        self.factor = factor
        self.running = None

    def on_step_end(self, trainer, loss):
        if self.running is not None and loss > self.factor * self.running and trainer.step > 20:
            print(f"warning: loss spike at step {trainer.step}: {loss:.3f} vs running {self.running:.3f}")
        self.running = loss if self.running is None else 0.9 * self.running + 0.1 * loss


class Checkpoint:
    """Writes the final weights (as .npz arrays) and the metrics history to out_dir."""

    def __init__(self, out_dir):
        self.out = Path(out_dir) if out_dir else None

    def on_fit_end(self, trainer):
        if self.out is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        arrays = {k: v.detach().cpu().numpy() for k, v in trainer.model.state_dict().items()}
        arrays["classes"] = np.array(trainer.model.classes)
        np.savez(self.out / "herdnet.npz", **arrays)
        rows = [{k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in row.items()} for row in trainer.history]
        (self.out / "history.json").write_text(json.dumps(rows, indent=1))


def default_callbacks(cfg):
    return [GradientWatch(), EpochReport(), Checkpoint(cfg.train.out_dir)]


def seed_everything(seed):
    np.random.seed(seed)
    torch.manual_seed(seed)

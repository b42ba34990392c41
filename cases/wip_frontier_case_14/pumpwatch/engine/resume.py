"""Resumable runs: the last epoch's full training state, and restoring it.

Together with the trainer's per-epoch seeding (``epoch_seed``) a resumed run repeats the epochs an
uninterrupted run would have trained, number for number.
"""

from pathlib import Path

import torch

from .callbacks import Callback

LAST = "last.pt"


class SaveLast(Callback):
    """After every epoch, write model, optimizer, scheduler and history to ``<dir>/last.pt``."""

    def __init__(self, directory, enabled=True):
        self.path = Path(directory) / LAST
        self.enabled = enabled

    def on_epoch_end(self, trainer, row):
        if not self.enabled:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"epoch": row["epoch"], "step": trainer.step, "model": trainer.model.state_dict(),
                    "optimizer": trainer.opt.state_dict(), "scheduler": trainer.sched.state_dict(),
                    "history": trainer.history}, self.path)


def restore(trainer, directory):
    """Load ``<dir>/last.pt`` into ``trainer``; returns the epoch to start from (1 when there is none)."""
    path = Path(directory) / LAST
    if not path.is_file():
        return 1
    state = torch.load(path, map_location="cpu", weights_only=False)
    trainer.model.load_state_dict(state["model"])
    trainer.opt.load_state_dict(state["optimizer"])
    trainer.sched.load_state_dict(state["scheduler"])
    trainer.history = list(state["history"])
    trainer.step = int(state["step"])
    return int(state["epoch"]) + 1

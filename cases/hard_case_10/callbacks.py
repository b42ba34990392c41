"""Trainer callbacks: console and file logging, history, early stopping, export.

A callback sees ``on_train_start(trainer)``, ``on_step(trainer, row)`` at every step (``row``
holds the step's losses; on logged steps also the evaluation) and ``on_train_end(trainer)``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path


class Callback:
    order = 50

    def on_train_start(self, trainer):
        pass

    def on_step(self, trainer, row: dict):
        pass

    def on_train_end(self, trainer):
        pass


class ConsoleLogger(Callback):
    order = 80

    def __init__(self, unit: str = ""):
        self.unit = f" {unit}" if unit else ""

    def on_step(self, trainer, row):
        if "rel_l2" not in row:
            return
        e0, e1 = row["face_err"]
        print(f"step {row['step']:5d} | loss {row['loss']:.3e} | pde {row['pde']:.3e} | bc {row['bc']:.3e} | "
              f"u(0) err {e0:7.3f}{self.unit} | u(L) err {e1:7.3f}{self.unit} | rel L2 {row['rel_l2']:.2e}", flush=True)


class History(Callback):
    """The logged rows, in memory (what train() returns)."""

    order = 90

    def __init__(self):
        self.rows = []

    def on_step(self, trainer, row):
        if "rel_l2" in row:
            self.rows.append(dict(row))


class JsonlLogger(Callback):
    order = 85

    def __init__(self, path: str):
        self.path = Path(path)
        self.file = None

    def on_train_start(self, trainer):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = self.path.open("w", encoding="utf-8")
        self.file.write(json.dumps({"config": trainer.cfg.to_dict()}, default=str) + "\n")

    def on_step(self, trainer, row):
        if self.file and "rel_l2" in row:
            self.file.write(json.dumps({k: v for k, v in row.items() if _finite(v)}) + "\n")

    def on_train_end(self, trainer):
        if self.file:
            self.file.close()
            self.file = None


def _finite(v) -> bool:
    return not isinstance(v, float) or math.isfinite(v)


class EarlyStopping(Callback):
    """Stops once the relative L2 error of a logged step is below `target`."""

    order = 95

    def __init__(self, target: float):
        self.target = target

    def on_step(self, trainer, row):
        if row.get("rel_l2", math.inf) < self.target:
            print(f"target rel L2 {self.target:g} reached at step {row['step']}", flush=True)
            trainer.stop = True


class KeepBest(Callback):
    """Remembers the weights at the logged step with the lowest total loss and restores them at the
    end (the loss, not the error against the analytic solution: a real run has no analytic one)."""

    order = 97

    def __init__(self):
        self.best_loss = math.inf
        self.best_state = None
        self.best_step = None

    def on_step(self, trainer, row):
        if "rel_l2" in row and row["loss"] < self.best_loss:
            self.best_loss, self.best_step = row["loss"], row["step"]
            self.best_state = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}

    def on_train_end(self, trainer):
        if self.best_state is not None:
            trainer.model.load_state_dict(self.best_state)
            print(f"restored the weights of step {self.best_step} (loss {self.best_loss:.3e})", flush=True)


class Exporter(Callback):
    order = 99

    def __init__(self, out_dir: str):
        self.out_dir = out_dir

    def on_train_end(self, trainer):
        from export import export_run

        print(f"exported to {export_run(self.out_dir, trainer)}", flush=True)


def default_callbacks(cfg, problem) -> list[Callback]:
    callbacks = [ConsoleLogger(problem.unit), History()]
    if cfg.run.metrics_file:
        callbacks.append(JsonlLogger(cfg.run.metrics_file))
    if cfg.run.target_rel_l2 > 0:
        callbacks.append(EarlyStopping(cfg.run.target_rel_l2))
    if cfg.run.keep_best:
        callbacks.append(KeepBest())
    if cfg.run.out_dir:
        callbacks.append(Exporter(cfg.run.out_dir))
    return sorted(callbacks, key=lambda cb: cb.order)

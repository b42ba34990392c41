"""Trainer callbacks: console and file logging, probe values, early stopping, export.

A callback sees the trainer at three moments: ``on_train_start(trainer)``,
``on_update(trainer, row)`` after every optimizer update (``row`` holds that update's
numbers; callbacks may add to it) and ``on_train_end(trainer)``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch


class Callback:
    order = 50   # lower runs first

    def on_train_start(self, trainer):
        pass

    def on_update(self, trainer, row: dict):
        pass

    def on_train_end(self, trainer):
        pass


class ProbeValues(Callback):
    """On logged updates, the critic's value at each non-terminal state of a probe task whose
    values are known, next to the expected ones (added to the row as ``probe_values``)."""

    order = 10

    def __init__(self, expected: list[float], obs_dim: int, every: int):
        self.expected = expected
        self.states = torch.eye(obs_dim)[: len(expected)]
        self.every = every

    @torch.no_grad()
    def on_update(self, trainer, row):
        if row["update"] % self.every == 0:
            row["probe_values"] = trainer.model(self.states)[1].tolist()
            row["probe_error"] = max(abs(v - e) for v, e in zip(row["probe_values"], self.expected))


class ConsoleLogger(Callback):
    order = 80

    def __init__(self, every: int):
        self.every = every

    def on_update(self, trainer, row):
        if row["update"] % self.every:
            return
        msg = (f"update {row['update']:4d} | lr {row['lr']:.1e} | episode return {row['ep_return']:.3f}"
               f" | value loss {row['value_loss']:.4f} | mean target {row['mean_target']:.3f}"
               f" | mean V {row['mean_value']:.3f}")
        if "probe_values" in row:
            msg += " | V(obs) " + " ".join(f"{v:.3f}" for v in row["probe_values"])
        print(msg, flush=True)


class JsonlLogger(Callback):
    """Every logged update as one JSON object per line."""

    order = 85

    def __init__(self, path: str, every: int):
        self.path = Path(path)
        self.every = every
        self.file = None

    def on_train_start(self, trainer):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = self.path.open("w", encoding="utf-8")
        self.file.write(json.dumps({"config": trainer.cfg.to_dict()}) + "\n")

    def on_update(self, trainer, row):
        if row["update"] % self.every == 0 and self.file:
            self.file.write(json.dumps({k: v for k, v in row.items() if _plain(v)}) + "\n")
            self.file.flush()

    def on_train_end(self, trainer):
        if self.file:
            self.file.close()
            self.file = None


def _plain(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (int, str, list, bool))


class History(Callback):
    """Keeps the logged rows in memory (what train() returns)."""

    order = 90

    def __init__(self, every: int):
        self.every = every
        self.rows = []

    def on_update(self, trainer, row):
        if row["update"] % self.every == 0:
            self.rows.append(dict(row))


class EarlyStopping(Callback):
    """Stops once the mean episode return reaches `threshold` over a full window of episodes."""

    order = 95

    def __init__(self, threshold: float, min_episodes: int = 100):
        self.threshold = threshold
        self.min_episodes = min_episodes

    def on_update(self, trainer, row):
        tracker = trainer.episodes
        if len(tracker.returns) >= self.min_episodes and tracker.mean_return >= self.threshold:
            print(f"early stop at update {row['update']}: mean return {tracker.mean_return:.3f}", flush=True)
            trainer.stop = True


class Exporter(Callback):
    """Writes the trained weights, the config and a summary to `out_dir` at the end."""

    order = 99

    def __init__(self, out_dir: str):
        self.out_dir = out_dir

    def on_train_end(self, trainer):
        from export import export_run

        path = export_run(self.out_dir, trainer)
        print(f"exported to {path}", flush=True)


def default_callbacks(cfg, probe_expected=None, obs_dim=None) -> list[Callback]:
    every = cfg.run.log_every
    callbacks = [ConsoleLogger(every), History(every)]
    if probe_expected:
        callbacks.append(ProbeValues(probe_expected, obs_dim, every))
    if cfg.run.metrics_file:
        callbacks.append(JsonlLogger(cfg.run.metrics_file, every))
    if math.isfinite(cfg.run.early_stop_return):
        callbacks.append(EarlyStopping(cfg.run.early_stop_return))
    if cfg.run.out_dir:
        callbacks.append(Exporter(cfg.run.out_dir))
    return sorted(callbacks, key=lambda cb: cb.order)

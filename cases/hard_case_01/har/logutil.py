"""Small helpers for the run header and summary lines."""

import platform
import time

import torch


def header(cfg, n_params, describe):
    lines = [f"run {cfg.name}: model {cfg.model.name} ({n_params:,} parameters), "
             f"torch {torch.__version__}, python {platform.python_version()}",
             describe(cfg)]
    return "\n".join(lines)


class Timer:
    def __init__(self):
        self.start = time.perf_counter()

    def elapsed(self):
        return time.perf_counter() - self.start


def format_summary(best_step, best_acc, final):
    return (f"best val acc {best_acc:.3f} at step {best_step} | final val acc {final['val_acc']:.3f} | "
            f"final f1 {final['f1']:.3f}")

"""Trainer callbacks. Hooks, in the order the trainer calls them:

  on_train_begin(state)
  on_loss(state)        the batch's loss is computed, nothing has been backpropagated yet
  on_batch_end(state)   the optimizer has stepped; state.row holds the batch's history row
  on_epoch_end(state)
  on_train_end(state)
"""

import json
import math
from pathlib import Path


class Callback:
    def on_train_begin(self, state):
        pass

    def on_loss(self, state):
        pass

    def on_batch_end(self, state):
        pass

    def on_epoch_end(self, state):
        pass

    def on_train_end(self, state):
        pass


class CallbackList(Callback):
    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def _all(self, hook, state):
        for cb in self.callbacks:
            getattr(cb, hook)(state)

    def on_train_begin(self, state):
        self._all("on_train_begin", state)

    def on_loss(self, state):
        self._all("on_loss", state)

    def on_batch_end(self, state):
        self._all("on_batch_end", state)

    def on_epoch_end(self, state):
        self._all("on_epoch_end", state)

    def on_train_end(self, state):
        self._all("on_train_end", state)


class NonFiniteLossGuard(Callback):
    """Stop before a non-finite loss is backpropagated into the weights."""

    def on_loss(self, state):
        value = state.loss.item()
        if not math.isfinite(value):
            raise FloatingPointError(f"loss is {value} at step {state.step} (epoch {state.epoch}, "
                                     f"{state.site} batch {state.batch_index})")


class History(Callback):
    def __init__(self):
        self.rows = []

    def on_batch_end(self, state):
        self.rows.append(state.row)


class ConsoleLogger(Callback):
    def __init__(self, every):
        self.every = every

    def on_batch_end(self, state):
        row = state.row
        if row["step"] % self.every == 0:
            print(f"step {row['step']:4d} | epoch {row['epoch']} | {row['site']:<13} | deviance {row['loss']:7.3f} | "
                  f"mae {row['mae_kwh']:6.2f} kWh | lr {row['lr']:.2e}", flush=True)


class EpochSummary(Callback):
    """Per-epoch means, kept for the export report (and printed when verbose)."""

    def __init__(self, verbose=False):
        self.verbose, self.epochs, self._rows = verbose, [], []

    def on_batch_end(self, state):
        self._rows.append(state.row)

    def on_epoch_end(self, state):
        if not self._rows:
            return
        n = len(self._rows)
        summary = {"epoch": state.epoch, "batches": n, "deviance": sum(r["loss"] for r in self._rows) / n,
                   "mae_kwh": sum(r["mae_kwh"] for r in self._rows) / n}
        self.epochs.append(summary)
        self._rows = []
        if self.verbose:
            print(f"epoch {summary['epoch']} | {n} batches | mean deviance {summary['deviance']:.3f} | "
                  f"mean mae {summary['mae_kwh']:.2f} kWh", flush=True)


class EarlyStopping(Callback):
    """Stop when an epoch's mean MAE has not improved for `patience` epochs (0 = off)."""

    def __init__(self, summary, patience):
        self.summary, self.patience, self.best, self.bad = summary, patience, math.inf, 0

    def on_epoch_end(self, state):
        if self.patience <= 0 or not self.summary.epochs:
            return
        mae = self.summary.epochs[-1]["mae_kwh"]
        if mae < self.best - 1e-3:
            self.best, self.bad = mae, 0
        else:
            self.bad += 1
            state.stop = self.bad >= self.patience


class JsonlLog(Callback):
    """Every history row to a JSONL file (for plotting)."""

    def __init__(self, path):
        self.path, self.file = Path(path), None

    def on_train_begin(self, state):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(self.path, "w")

    def on_batch_end(self, state):
        self.file.write(json.dumps(state.row) + "\n")

    def on_train_end(self, state):
        if self.file:
            self.file.close()

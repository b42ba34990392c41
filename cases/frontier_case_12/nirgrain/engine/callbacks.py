"""Trainer callbacks. Each hook receives the trainer; callbacks run in the order given."""

import copy
import math
from pathlib import Path

import torch

from nirgrain.engine.averaging import ExponentialAverage
from nirgrain.engine.precise_bn import recompute_batchnorm


class Callback:
    def on_fit_start(self, trainer):
        pass

    def on_train_epoch_start(self, trainer, epoch):
        pass

    def on_step_end(self, trainer):
        pass

    def on_train_epoch_end(self, trainer, epoch, train):
        pass

    def on_validation_end(self, trainer, epoch, train, val):
        pass

    def on_fit_end(self, trainer):
        pass


class WarmupCosine(Callback):
    """Linear warmup over ``warmup_steps``, then cosine decay to ``min_ratio`` of the base rate."""

    def __init__(self, warmup_steps, total_steps, min_ratio):
        self.warmup_steps, self.total_steps, self.min_ratio = warmup_steps, total_steps, min_ratio
        self.base = None

    def factor(self, step):
        if self.warmup_steps > 0 and step < self.warmup_steps:
            return (step + 1) / self.warmup_steps
        span = max(1, self.total_steps - self.warmup_steps)
        progress = min(1.0, (step - self.warmup_steps) / span)
        return self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))

    def _set(self, trainer):
        for group, base in zip(trainer.optimizer.param_groups, self.base):
            group["lr"] = base * self.factor(trainer.step)

    def on_fit_start(self, trainer):
        self.base = [group["lr"] for group in trainer.optimizer.param_groups]
        self._set(trainer)

    def on_step_end(self, trainer):
        self._set(trainer)


class PreciseBatchNorm(Callback):
    """Recomputes the BatchNorm statistics of the trained model from ``n_batches`` clean training
    batches after every epoch, before it is validated (see nirgrain/engine/precise_bn.py)."""

    def __init__(self, n_batches):
        self.n_batches = n_batches

    def clean_batches(self, trainer):
        x, size = trainer.data.train_loader.x, trainer.cfg.data.batch_size
        order = torch.randperm(len(x), generator=torch.Generator().manual_seed(trainer.cfg.seed))
        for i in range(self.n_batches):
            batch = x[order[i * size:(i + 1) * size]]
            if len(batch) < 2:
                return
            yield batch

    def on_train_epoch_end(self, trainer, epoch, train):
        if self.n_batches > 0:
            recompute_batchnorm(trainer.model, self.clean_batches(trainer))


class WeightAveraging(Callback):
    """Starts an exponential moving average of the weights at the beginning of epoch
    ``start_epoch`` and updates it after every optimizer step."""

    def __init__(self, decay, warmup, start_epoch):
        self.decay, self.warmup, self.start_epoch = decay, warmup, start_epoch

    def on_train_epoch_start(self, trainer, epoch):
        if epoch == self.start_epoch and trainer.average is None:
            trainer.average = ExponentialAverage(trainer.model, self.decay, self.warmup)
            trainer.logger.info(f"weight average: started at step {trainer.step} (decay {self.decay}, "
                                f"warmup {self.warmup})")

    def on_step_end(self, trainer):
        if trainer.average is not None:
            trainer.average.update()


class EarlyStopping(Callback):
    """Stops after ``patience`` epochs without a lower validation loss (0 disables it)."""

    def __init__(self, patience, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad_epochs = math.inf, 0

    def on_validation_end(self, trainer, epoch, train, val):
        if self.patience <= 0:
            return
        if val["loss"] < self.best - self.min_delta:
            self.best, self.bad_epochs = val["loss"], 0
        else:
            self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                trainer.logger.info(f"early stop: no improvement for {self.patience} epochs")
                trainer.should_stop = True


class BestCheckpoint(Callback):
    """Keeps the weights of the epoch with the lowest validation loss, loads them at the end of
    the fit and saves them with everything evaluate.py and export.py need."""

    def __init__(self, path):
        self.path = Path(path)
        self.best = None

    def on_validation_end(self, trainer, epoch, train, val):
        if self.best is None or val["loss"] < self.best["val"]["loss"]:
            self.best = {"epoch": epoch, "val": val, "state": copy.deepcopy(trainer.evaluated_model().state_dict())}

    def on_fit_end(self, trainer):
        if self.best is None:
            return
        trainer.evaluated_model().load_state_dict(self.best["state"])
        val = self.best["val"]
        trainer.logger.info(f"best epoch {self.best['epoch']}: val loss {val['loss']:.4f} acc {val['acc']:.3f}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"model": self.best["state"], "config": trainer.cfg.to_dict(), "epoch": self.best["epoch"],
                    "static": trainer.data.static.state_dict(), "val": {k: val[k] for k in ("loss", "acc", "f1")}},
                   self.path)
        trainer.best_epoch = self.best["epoch"]


class Revalidate(Callback):
    """Validates the final model ``times`` times, as a check that the saved numbers are reproducible."""

    def __init__(self, times):
        self.times = times

    def on_fit_end(self, trainer):
        if self.times <= 0:
            return
        again = [trainer.validate() for _ in range(self.times)]
        trainer.revalidated = again
        trainer.logger.info("best checkpoint re-validated: "
                            + ", ".join(f"loss {r['loss']:.4f} acc {r['acc']:.3f}" for r in again))
        trainer.logger.record("revalidate", losses=[r["loss"] for r in again])


class MetricsFile(Callback):
    """One JSON line per epoch in the run folder."""

    def on_validation_end(self, trainer, epoch, train, val):
        trainer.logger.record("epoch", epoch=epoch, step=trainer.step, lr=trainer.current_lr(),
                              train={k: train[k] for k in ("loss", "acc")},
                              val={k: val[k] for k in ("loss", "acc", "f1", "ece", "recall", "instrument_acc")})


def default_callbacks(cfg, total_steps, checkpoint_path):
    """The callbacks a config asks for, in the order they must run."""
    callbacks = [WarmupCosine(cfg.optim.warmup_steps, total_steps, cfg.optim.min_lr_ratio)]
    if cfg.ema.decay > 0:
        callbacks.append(WeightAveraging(cfg.ema.decay, cfg.ema.warmup, cfg.ema.start_epoch))
    if cfg.trainer.precise_bn_batches > 0:
        callbacks.append(PreciseBatchNorm(cfg.trainer.precise_bn_batches))
    callbacks += [MetricsFile(), EarlyStopping(cfg.trainer.patience), BestCheckpoint(checkpoint_path),
                  Revalidate(cfg.trainer.revalidate)]
    return callbacks

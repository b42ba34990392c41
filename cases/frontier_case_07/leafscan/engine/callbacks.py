"""Trainer callbacks. Each hook receives the trainer; callbacks run in the order given."""

import copy
import math
from pathlib import Path

import torch

from leafscan.data.synth import CLASSES
from leafscan.models.freezing import describe_freezing, freeze, unfreeze


class Callback:
    def on_fit_start(self, trainer):
        pass

    def on_step_end(self, trainer):
        pass

    def on_validation_end(self, trainer, train, val):
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


class EncoderWarmStart(Callback):
    """Linear probing: the encoder is frozen for the first ``steps`` optimizer steps while the head
    fits, then unfrozen and trained with the rest (the optimizer holds every parameter; a frozen one
    has no gradient and is skipped)."""

    def __init__(self, steps):
        self.steps = steps

    def on_fit_start(self, trainer):
        freeze(trainer.model.encoder)
        trainer.logger.info(f"encoder frozen for the first {self.steps} steps")

    def on_step_end(self, trainer):
        if trainer.step == self.steps:
            unfreeze(trainer.model.encoder)
            trainer.logger.info(f"step {self.steps}: encoder unfrozen ({describe_freezing(trainer.model)})")


class EarlyStopping(Callback):
    """Stops after ``patience`` validations without a lower validation loss (0 disables it)."""

    def __init__(self, patience, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad_validations = math.inf, 0

    def on_validation_end(self, trainer, train, val):
        if self.patience <= 0:
            return
        if val["loss"] < self.best - self.min_delta:
            self.best, self.bad_validations = val["loss"], 0
        else:
            self.bad_validations += 1
            if self.bad_validations >= self.patience:
                trainer.logger.info(f"early stop at step {trainer.step}: no improvement in {self.patience} validations")
                trainer.should_stop = True


class BestCheckpoint(Callback):
    """Keeps the weights of the validation with the best ``select`` metric (lowest loss, or highest
    accuracy / F1), loads them at the end of the fit and saves them with everything evaluate.py and
    export.py need."""

    def __init__(self, path, select="loss"):
        self.path = Path(path)
        self.select = select
        self.best = None

    def _better(self, val):
        if self.best is None:
            return True
        if self.select == "loss":
            return val["loss"] < self.best["val"]["loss"]
        return val[self.select] > self.best["val"][self.select]

    def on_validation_end(self, trainer, train, val):
        if self._better(val):
            self.best = {"step": trainer.step, "val": val, "state": copy.deepcopy(trainer.model.state_dict())}

    def on_fit_end(self, trainer):
        if self.best is None:
            return
        trainer.model.load_state_dict(self.best["state"])
        val = self.best["val"]
        trainer.logger.info(f"best step {self.best['step']} (by val {self.select}): val loss {val['loss']:.4f} "
                            f"acc {val['acc']:.3f} f1 {val['f1']:.3f}")
        trainer.logger.info("  by condition: " + " ".join(f"{c} {r:.3f}" for c, r in zip(CLASSES, val["recall"])))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        torch.save({"model": self.best["state"], "config": trainer.cfg.to_dict(), "step": self.best["step"],
                    "static": trainer.data.static.state_dict(), "val": {k: val[k] for k in ("loss", "acc", "f1")}},
                   self.path)
        trainer.best_step = self.best["step"]


class MetricsFile(Callback):
    """One JSON line per validation in the run folder."""

    def on_validation_end(self, trainer, train, val):
        trainer.logger.record("validation", step=trainer.step, lr=trainer.current_lr(),
                              train={k: train[k] for k in ("loss", "acc")},
                              val={k: val[k] for k in ("loss", "acc", "f1", "ece", "recall", "house_acc")})


def default_callbacks(cfg, total_steps, checkpoint_path):
    """The callbacks a config asks for, in the order they must run."""
    callbacks = [WarmupCosine(cfg.optim.warmup_steps, total_steps, cfg.optim.min_lr_ratio)]
    if cfg.model.freeze_encoder_steps > 0:
        callbacks.append(EncoderWarmStart(cfg.model.freeze_encoder_steps))
    callbacks += [MetricsFile(), EarlyStopping(cfg.trainer.patience), BestCheckpoint(checkpoint_path, cfg.eval.select)]
    return callbacks

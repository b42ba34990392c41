"""Trainer callbacks, called in order at each hook."""

import math

from chatlm import checkpoint
from chatlm.sampling import generate


class Callback:
    def on_fit_start(self, trainer):
        pass

    def on_step_end(self, trainer):
        pass

    def on_log(self, trainer, step, train_loss, val):
        pass

    def on_fit_end(self, trainer):
        pass


class WarmupCosineLR(Callback):
    def __init__(self, warmup, total, min_ratio=0.1):
        self.warmup, self.total, self.min_ratio = warmup, max(1, total), min_ratio
        self.base = None

    def factor(self, step):
        if step < self.warmup:
            return (step + 1) / self.warmup
        progress = min(1.0, (step - self.warmup) / max(1, self.total - self.warmup))
        return self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * progress))

    def on_fit_start(self, trainer):
        self.base = [g["lr"] for g in trainer.optimizer.param_groups]
        self._apply(trainer)

    def on_step_end(self, trainer):
        self._apply(trainer)

    def _apply(self, trainer):
        if self.warmup <= 0:
            return
        for g, base in zip(trainer.optimizer.param_groups, self.base):
            g["lr"] = base * self.factor(trainer.step)


class ConsoleLog(Callback):
    def on_log(self, trainer, step, train_loss, val):
        trainer.log(f"step {step:4d} | train loss {train_loss:.4f} | val loss {val['loss']:.4f}")


class History(Callback):
    def on_log(self, trainer, step, train_loss, val):
        trainer.history.append({"step": step, "loss": train_loss, "val_loss": val["loss"],
                                "val_acc": val["acc"], "val_stop": val["stop"]})


class SampleReply(Callback):
    """Greedy reply to the first held-out prompt at the end of training."""

    def __init__(self, max_tokens):
        self.max_tokens = max_tokens

    def on_fit_end(self, trainer):
        if self.max_tokens <= 0:
            return
        prompt = trainer.evaluator.prompt(0)
        new = generate(trainer.model, prompt, self.max_tokens, stop_ids={trainer.tok.eos_id})
        trainer.sample = trainer.tok.decode(new)
        trainer.log(f"sample reply: {trainer.sample!r}")


class SaveCheckpoint(Callback):
    def __init__(self, path):
        self.path = path

    def on_fit_end(self, trainer):
        if self.path:
            saved = checkpoint.save(self.path, trainer.model, trainer.cfg, trainer.tok, trainer.step)
            trainer.log(f"saved {saved}")


def default_callbacks(cfg):
    return [WarmupCosineLR(cfg.optim.warmup_steps, cfg.train.steps), History(), ConsoleLog(),
            SampleReply(cfg.train.sample_tokens), SaveCheckpoint(cfg.train.checkpoint)]

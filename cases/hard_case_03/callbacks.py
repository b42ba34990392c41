"""Trainer callbacks: classifier refresh, learning-rate warmup, logging, history, metrics file."""

import json


class Callback:
    """Hooks the trainer calls; every method is optional."""

    def on_train_begin(self, trainer):
        pass

    def before_step(self, trainer, step):
        pass

    def on_log(self, trainer, step, row):
        pass

    def on_train_end(self, trainer):
        pass


class ClassifierRefresh(Callback):
    """Rebuilds the classifier (memory bank or prototypes) from the current encoder every
    ``every`` steps, before the step's batch is scored; the classifier is stale in between."""

    def __init__(self, build, every):
        self.build, self.every = build, every
        self.refreshes = 0

    def before_step(self, trainer, step):
        if step % self.every == 0:
            trainer.classifier = self.build(trainer.encoder)
            self.refreshes += 1


class Warmup(Callback):
    """Linear learning-rate warmup over the first ``steps`` steps (none when 0)."""

    def __init__(self, peak, steps):
        self.peak, self.steps = peak, steps

    def before_step(self, trainer, step):
        if self.steps:
            for group in trainer.optimizer.param_groups:
                group["lr"] = self.peak * min(1.0, (step + 1) / self.steps)


class BestEncoder(Callback):
    """Keeps the encoder weights of the logged step with the best validation loss and restores
    them (with a classifier rebuilt from them) when training ends."""

    def __init__(self, rebuild):
        self.rebuild = rebuild
        self.best_loss, self.best_step, self.state = float("inf"), None, None

    def on_log(self, trainer, step, row):
        if row["val_loss"] < self.best_loss:
            self.best_loss, self.best_step = row["val_loss"], step
            self.state = {k: v.detach().clone() for k, v in trainer.encoder.state_dict().items()}

    def on_train_end(self, trainer):
        if self.state is not None:
            trainer.encoder.load_state_dict(self.state)
            trainer.classifier = self.rebuild(trainer.encoder)
            print(f"restored the encoder of step {self.best_step} (val loss {self.best_loss:.4f})")


class History(Callback):
    """Keeps every logged row; run_experiment returns it."""

    def __init__(self):
        self.rows = []

    def on_log(self, trainer, step, row):
        self.rows.append(dict(row))


class ConsoleLogger(Callback):
    def on_train_begin(self, trainer):
        for line in trainer.header:
            print(line)

    def on_log(self, trainer, step, row):
        print(f"step {step:4d} | train loss {row['loss']:.4f} | val loss {row['val_loss']:.4f} | "
              f"val acc {row['val_acc']:.3f} | val top5 {row['val_top5']:.3f}", flush=True)


class MetricsFile(Callback):
    """One JSON line per logged step, for the comparison notebooks."""

    def __init__(self, path):
        self.path = path

    def on_train_begin(self, trainer):
        open(self.path, "w").close()

    def on_log(self, trainer, step, row):
        with open(self.path, "a") as fh:
            fh.write(json.dumps(row) + "\n")

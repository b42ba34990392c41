"""Trainer callbacks: progress log and best-checkpoint tracking."""

import copy


class Callback:
    def on_step(self, trainer, step, loss):
        pass

    def on_epoch_end(self, trainer, epoch):
        pass


class ProgressLog(Callback):
    def __init__(self, every):
        self.every = every
        self.window = []

    def on_step(self, trainer, step, loss):
        self.window.append(loss)
        if step % self.every == 0:
            mean = sum(self.window) / len(self.window)
            self.window = []
            print(f"step {step:4d} | epoch {trainer.epoch} | loss {mean:.4f} | lr {trainer.lr():.2e}")

    def on_epoch_end(self, trainer, epoch):
        report = trainer.evaluate(trainer.val)
        trainer.history.append({"epoch": epoch, "val_acc": report["accuracy"], "val_macro_f1": report["macro_f1"]})


class KeepBest(Callback):
    """Keeps the weights of the epoch with the best validation macro-F1 and restores them at the end."""

    def __init__(self):
        self.best, self.state = -1.0, None

    def on_epoch_end(self, trainer, epoch):
        score = trainer.history[-1]["val_macro_f1"]
        if score > self.best:
            self.best, self.state = score, copy.deepcopy(trainer.model.state_dict())

    def restore(self, model):
        if self.state is not None:
            model.load_state_dict(self.state)


class EarlyStopping(Callback):
    """Stops training when the validation macro-F1 has not improved for `patience` epochs."""

    def __init__(self, patience=3, min_delta=0.0):
        self.patience, self.min_delta = patience, min_delta
        self.best, self.bad_epochs = -1.0, 0

    def on_epoch_end(self, trainer, epoch):
        score = trainer.history[-1]["val_macro_f1"]
        if score > self.best + self.min_delta:
            self.best, self.bad_epochs = score, 0
        else:
            self.bad_epochs += 1
        if self.bad_epochs >= self.patience:
            trainer.stop = True

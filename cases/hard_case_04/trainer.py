"""The training loop: optimizer steps on the training stream, periodic evaluation, callbacks."""

import torch
import torch.nn.functional as F

from loader import eval_batches
from metrics import summarize


@torch.no_grad()
def predict(model, xs, batch_size):
    """Eval-mode logits of every recording, in order, evaluated in batches of ``batch_size``."""
    was_training = model.training
    model.eval()
    dummy = torch.zeros(len(xs), dtype=torch.long)
    logits = [model(x, lengths) for x, lengths, _ in eval_batches(xs, dummy, batch_size)]
    model.train(was_training)
    return torch.cat(logits)


def evaluate(model, xs, ys, batch_size, n_classes):
    logits = predict(model, xs, batch_size)
    return summarize(logits, ys, n_classes), logits


def make_optimizer(model, optim_cfg):
    if optim_cfg.name == "adam":
        return torch.optim.Adam(model.parameters(), lr=optim_cfg.lr, weight_decay=optim_cfg.weight_decay)
    if optim_cfg.name == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=optim_cfg.lr, weight_decay=optim_cfg.weight_decay)
    if optim_cfg.name == "sgd":
        return torch.optim.SGD(model.parameters(), lr=optim_cfg.lr, momentum=0.9,
                               weight_decay=optim_cfg.weight_decay)
    raise ValueError(f"optim.name: unknown optimizer {optim_cfg.name!r} (adam, adamw, sgd)")


class Trainer:
    def __init__(self, model, optimizer, stream, val_set, cfg, n_classes, augment=None, callbacks=(), header=()):
        self.model, self.optimizer, self.stream = model, optimizer, stream
        self.val_xs, self.val_ys = val_set
        self.cfg, self.n_classes, self.augment = cfg, n_classes, augment
        self.callbacks = list(callbacks)
        self.header = list(header)
        self.stop_requested = False

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self):
        steps, every = self.cfg.optim.steps, self.cfg.eval.every
        self.model.train()
        self._emit("on_train_begin")
        for step in range(steps + 1):
            self._emit("before_step", step)
            x, lengths, y = next(self.stream)
            if self.augment is not None:
                x = self.augment(x, lengths)
            loss = F.cross_entropy(self.model(x, lengths), y)
            if step % every == 0 or step == steps:
                metrics, _ = evaluate(self.model, self.val_xs, self.val_ys, self.cfg.eval.batch_size, self.n_classes)
                row = {"step": step, "loss": loss.item(), "val_loss": metrics["loss"], "val_acc": metrics["acc"],
                       "val_f1": metrics["macro_f1"], "val_ece": metrics["ece"],
                       "lr": self.optimizer.param_groups[0]["lr"]}
                self._emit("on_log", step, row)
                if self.stop_requested:
                    break
            if step < steps:
                self.optimizer.zero_grad()
                loss.backward()
                self._emit("after_backward", step)
                self.optimizer.step()
        self._emit("on_train_end")
        return self.model

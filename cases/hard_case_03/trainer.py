"""The training loop: the neighbour objective on training batches, periodic evaluation, callbacks."""

import torch
import torch.nn.functional as F

from metrics import summarize


@torch.no_grad()
def predict(encoder, norm, classifier, loader, tau):
    """Class log-probabilities and labels of everything ``loader`` yields (encoder in eval mode)."""
    was_training = encoder.training
    encoder.eval()
    logp, labels = [], []
    for x, y, _ in loader:
        logp.append(classifier.log_probs(encoder(norm(x)), tau))
        labels.append(y)
    encoder.train(was_training)
    logp, labels = torch.cat(logp), torch.cat(labels)
    if len(labels) != len(loader.dataset):
        raise RuntimeError(f"evaluated {len(labels)} of {len(loader.dataset)} images")
    return logp, labels


def evaluate(encoder, norm, classifier, loader, tau):
    logp, labels = predict(encoder, norm, classifier, loader, tau)
    return summarize(logp, labels), logp, labels


class Trainer:
    def __init__(self, encoder, norm, optimizer, stream, val_loader, cfg, callbacks=(), header=()):
        self.encoder, self.norm, self.optimizer, self.stream = encoder, norm, optimizer, stream
        self.val_loader, self.cfg = val_loader, cfg
        self.callbacks = list(callbacks)
        self.header = list(header)
        self.classifier = None  # set by the refresh callback before the first step

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self):
        steps, every, tau = self.cfg.optim.steps, self.cfg.eval.every, self.cfg.classifier.tau
        self.encoder.train()
        self._emit("on_train_begin")
        for step in range(steps + 1):
            self._emit("before_step", step)
            if self.classifier is None:
                raise RuntimeError("no classifier: a ClassifierRefresh callback must build one")
            x, y, ids = next(self.stream)
            logp = self.classifier.log_probs(self.encoder(self.norm(x)), tau, query_ids=ids)
            loss = F.nll_loss(logp, y)
            if step % every == 0 or step == steps:
                metrics, _, _ = evaluate(self.encoder, self.norm, self.classifier, self.val_loader, tau)
                row = {"step": step, "loss": loss.item(), "val_loss": metrics["loss"], "val_acc": metrics["acc"],
                       "val_top5": metrics["top5"], "val_ece": metrics["ece"]}
                self._emit("on_log", step, row)
            if step < steps:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
        self._emit("on_train_end")
        return self.encoder

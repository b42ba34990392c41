"""The training loop: mini-batches of the training rows (a fresh permutation every epoch), one
optimizer step per batch, a validation pass after every epoch, callbacks around both."""

import numpy as np
import torch

from losses import mse


def batches(order, batch_size):
    for i in range(0, len(order), batch_size):
        yield order[i:i + batch_size]


class Trainer:
    def __init__(self, model, optimizer, callbacks=(), grad_clip=0.0, loss_fn=mse):
        self.model, self.optimizer = model, optimizer
        self.loss_fn = loss_fn
        self.callbacks = list(callbacks)
        self.grad_clip = grad_clip
        self.stop = False
        self.global_step = 0

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_epoch(self, data, batch_size, rng):
        self.model.train()
        x, s, z = data[:3]
        w = data[3] if len(data) > 3 else None
        total, count = 0.0, 0
        order = rng.permutation(len(z))
        for idx in batches(order, batch_size):
            idx = torch.from_numpy(idx)
            pred = self.model(x[idx], s[idx])
            loss = self.loss_fn(pred, z[idx], None if w is None else w[idx])
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.grad_clip > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
            self.optimizer.step()
            self.global_step += 1
            total += loss.item() * len(idx)
            count += len(idx)
            self._call("on_step_end", loss.item())
        return total / max(1, count)

    @torch.no_grad()
    def predict(self, x, s):
        self.model.eval()
        return self.model(x, s).numpy()

    def fit(self, train, epochs, batch_size, validate, seed=0):
        rng = np.random.default_rng(seed)
        self._call("on_train_start")
        for epoch in range(epochs):
            train_loss = self.train_epoch(train, batch_size, rng)
            logs = {"train_loss": train_loss, **validate()}
            self._call("on_epoch_end", epoch, logs)
            if self.stop:
                break
        self._call("on_train_end")
        return self.model

"""The training loop: random batches of tokenized chats, AdamW, periodic held-out evaluation."""

import torch

from chatlm.data.batching import RandomBatches
from chatlm.metrics import lm_loss


class Trainer:
    def __init__(self, cfg, model, data, evaluator, callbacks, echo=True):
        self.cfg, self.model, self.data, self.evaluator, self.callbacks = cfg, model, data, evaluator, callbacks
        self.tok = data.tokenizer
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
        self.echo = echo
        self.step = 0
        self.history = []
        self.sample = None

    def log(self, text):
        if self.echo:
            print(text, flush=True)

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self):
        cfg = self.cfg
        batches = RandomBatches(self.data.examples, cfg.train.batch_size, self.tok.pad_id, cfg.seed)
        self._emit("on_fit_start")
        for step in range(cfg.train.steps + 1):
            x, y = batches.next()
            self.model.train()
            loss = lm_loss(self.model(x), y)
            if step % cfg.train.log_every == 0 or step == cfg.train.steps:
                self._emit("on_log", step, loss.item(), self.evaluator.evaluate(self.model))
            if step < cfg.train.steps:
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if cfg.optim.grad_clip > 0:
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.optim.grad_clip)
                self.optimizer.step()
                self.step += 1
                self._emit("on_step_end")
        self._emit("on_fit_end")
        return self.history

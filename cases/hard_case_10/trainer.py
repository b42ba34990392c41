"""The training loop: one Adam step per iteration on the physics-informed loss."""

from __future__ import annotations

import torch

from losses import PinnLoss
from metrics import evaluate
from sampling import Collocation


class Trainer:
    def __init__(self, cfg, problem, model, callbacks=()):
        self.cfg = cfg
        self.problem = problem
        self.model = model
        self.callbacks = list(callbacks)
        self.loss_fn = PinnLoss(problem, cfg.loss)
        self.collocation = Collocation(cfg.sampler, problem.L, cfg.run.seed)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.optim.lr, betas=tuple(cfg.optim.betas))
        milestones = [cfg.optim.decay_at] if cfg.optim.decay_at > 0 else []
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones, cfg.optim.decay_factor)
        self.step = 0
        self.stop = False

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self):
        self._emit("on_train_start")
        steps, every = self.cfg.optim.steps, self.cfg.run.log_every
        for step in range(steps + 1):
            self.step = step
            x_col = self.collocation.at_step(step, lambda x: self.problem.residual(self.model, x))
            terms = self.loss_fn(self.model, x_col)
            self.optimizer.zero_grad()
            terms.total.backward()
            row = {"step": step, "lr": self.optimizer.param_groups[0]["lr"], **terms.floats()}
            if step % every == 0 or step == steps:
                row.update(evaluate(self.model, self.problem))
            self._emit("on_step", row)
            if self.stop or step == steps:
                break
            if self.cfg.optim.max_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.optim.max_grad_norm)
            self.optimizer.step()
            self.scheduler.step()
        if self.cfg.optim.lbfgs_steps > 0 and not self.stop:
            self.polish(self.cfg.optim.lbfgs_steps)
        self._emit("on_train_end")
        return self.model

    def polish(self, iterations: int):
        """L-BFGS with a strong-Wolfe line search from where Adam stopped, on the same points."""
        lbfgs = torch.optim.LBFGS(self.model.parameters(), lr=1.0, max_iter=iterations,
                                  history_size=50, line_search_fn="strong_wolfe")
        x_col = self.collocation.points

        def closure():
            lbfgs.zero_grad()
            terms = self.loss_fn(self.model, x_col)
            terms.total.backward()
            return terms.total

        lbfgs.step(closure)
        terms = self.loss_fn(self.model, x_col)
        row = {"step": self.step + iterations, "lr": 1.0, **{k: v for k, v in terms.floats().items()}}
        row.update(evaluate(self.model, self.problem))
        self.step += iterations
        self._emit("on_step", row)

"""The A2C training loop: collect, estimate, one optimizer update, callbacks."""

from __future__ import annotations

import torch

from agent import a2c_loss, grad_norm, policy_ratio_drift
from metrics import EpisodeTracker, episode_ends, explained_variance
from rollout import collect
from schedules import current_lr, make_scheduler


class Trainer:
    def __init__(self, cfg, env, model, callbacks=()):
        self.cfg = cfg
        self.env = env
        self.model = model
        self.callbacks = list(callbacks)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.optim.lr, eps=cfg.optim.eps)
        self.scheduler = make_scheduler(self.optimizer, cfg.optim, cfg.run.updates + 1)
        self.episodes = EpisodeTracker()
        self.update = 0
        self.stop = False

    def _emit(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def train_step(self, rollout) -> dict:
        """One gradient update on a rollout; returns that update's numbers."""
        self.scheduler.step()
        parts = a2c_loss(self.model, rollout, self.cfg.algo)
        self.optimizer.zero_grad()
        parts.total.backward()
        norm = grad_norm(self.model.parameters())
        if self.cfg.optim.max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.optim.max_grad_norm)
        lr = current_lr(self.optimizer)
        self.optimizer.step()
        with torch.no_grad():
            values = self.model(rollout.obs)[1]
        return {"lr": lr, "value_loss": parts.value, "policy_loss": parts.policy, "entropy": parts.entropy,
                "mean_target": parts.mean_target, "mean_value": parts.mean_value, "grad_norm": norm,
                "policy_drift": policy_ratio_drift(self.model, rollout),
                "explained_variance": explained_variance(values.flatten(), rollout.next_values.flatten())}

    def fit(self):
        obs, _ = self.env.reset()
        self._emit("on_train_start")
        for update in range(self.cfg.run.updates + 1):
            self.update = update
            rollout, obs = collect(self.env, self.model, obs, self.cfg.algo.n_steps)
            self.episodes.add(rollout.finished_returns, rollout.finished_lengths)
            row = {"update": update, **self.train_step(rollout), **episode_ends(rollout),
                   "ep_return": self.episodes.mean_return, "ep_length": self.episodes.mean_length,
                   "episodes": self.episodes.total_episodes}
            self._emit("on_update", row)
            if self.stop:
                break
        self._emit("on_train_end")
        return self.model
